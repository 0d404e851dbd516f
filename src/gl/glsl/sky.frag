// The sky: the fog colour at and below the horizon (so fogged ground and the sky meet without an
// edge), rising to a zenith blue derived from the hemisphere's sky colour; the sun's disc and glow.
in vec3 v_ray;
uniform vec3 u_sun_direction;
uniform vec3 u_sun_color;
uniform vec3 u_sky_color;
uniform vec3 u_fog_color;
out vec4 o_color;
void main()
{
    vec3 d = normalize(v_ray);
    vec3 zenith = u_sky_color * vec3(0.8, 1.0, 1.5);
    vec3 color = mix(u_fog_color, zenith, pow(clamp(d.y, 0.0, 1.0), 0.5));
    float c = dot(d, u_sun_direction);
    color += u_sun_color * (pow(max(c, 0.0), 48.0) * 0.22 + pow(max(c, 0.0), 6.0) * 0.05);
    color = mix(color, u_sun_color * 4.0, smoothstep(0.99955, 0.9997, c)); // a disc about 1.5 degrees wide
    o_color = vec4(crowd_output(color), 1.0);
}
