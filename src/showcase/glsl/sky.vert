// The sky (showcase_stage_draw_sky): one triangle over the view (or its rows above u_sky_bottom); each
// pixel's world-space view ray.
uniform mat4 u_sky_view;     // the camera's view matrix
uniform vec2 u_sky_focal;    // projection[0], projection[5]
uniform float u_sky_bottom;  // NDC y below which the ground covers every pixel (-1: the whole view)
out vec3 v_ray;
void main()
{
    // a triangle covering [-1, 1] x [u_sky_bottom, 1]: rows left out are neither shaded nor depth-tested
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2)) * 2.0 - 1.0;
    p.y = u_sky_bottom + (p.y + 1.0) * (1.0 - u_sky_bottom) * 0.5;
    v_ray = transpose(mat3(u_sky_view)) * vec3(p.x / u_sky_focal.x, p.y / u_sky_focal.y, -1.0);
    gl_Position = vec4(p, 1.0, 1.0);
}
