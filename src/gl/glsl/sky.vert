// The sky (crowd_gl_draw_sky): one full-screen triangle; each pixel's world-space view ray.
uniform mat4 u_sky_view;     // the camera's view matrix
uniform vec2 u_sky_focal;    // projection[0], projection[5]
out vec3 v_ray;
void main()
{
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2)) * 2.0 - 1.0;
    v_ray = transpose(mat3(u_sky_view)) * vec3(p.x / u_sky_focal.x, p.y / u_sky_focal.y, -1.0);
    gl_Position = vec4(p, 1.0, 1.0);
}
