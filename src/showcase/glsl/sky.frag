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
    vec3 color = mix(u_fog_color, zenith, sqrt(clamp(d.y, 0.0, 1.0)));
    float c = dot(d, u_sun_direction);
    // the glow's powers by multiplication: every sky pixel pays them, and a pow is a log and an exp
    // in a software rasteriser (SwiftShader)
    float c2 = max(c, 0.0) * max(c, 0.0), c4 = c2 * c2, c16 = c4 * c4 * c4 * c4;
    color += u_sun_color * (c16 * c16 * c16 * 0.22 + c4 * c2 * 0.05);
    color = mix(color, u_sun_color * 4.0, smoothstep(0.99955, 0.9997, c)); // a disc about 1.5 degrees wide
    o_color = vec4(crowd_output(color), 1.0);
}
