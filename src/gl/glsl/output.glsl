// Prepended to every fragment shader (src/gl/program.c): how a linear colour reaches the framebuffer
// (crowd_gl_scene.output). 0: the legacy pow(c, 1 / 2.2); 1: exposure, the ACES filmic curve (the
// widely used fit of Narkowicz 2015) and the sRGB transfer function, for crowd, props, grass and sky.
uniform vec2 u_tone; // mode, exposure

vec3 crowd_output(vec3 c)
{
    if (u_tone.x < 0.5)
        return pow(max(c, vec3(0.0)), vec3(1.0 / 2.2));
    c = max(c * u_tone.y, vec3(0.0));
    c = clamp((c * (2.51 * c + 0.03)) / (c * (2.43 * c + 0.59) + 0.14), 0.0, 1.0);
    // the sRGB curve's upper part, 1.055 c^(1 / 2.4) - 0.055, as three square roots (Ian Taylor's fit, within 0.40 / 255
    // of the curve): every pixel pays it, and a pow is a log and an exp in a software rasteriser (SwiftShader)
    vec3 s1 = sqrt(c), s2 = sqrt(s1);
    return mix(c * 12.92, 0.585122381 * s1 + 0.783140355 * s2 - 0.368262736 * sqrt(s2), step(vec3(0.0031308), c));
}

#ifdef VELOCITY
// Motion vectors (crowd_gl_desc.velocity, the colour pass's second target): where this pixel's
// surface point is now minus where it was a frame earlier, both projected per pixel from the
// interpolated world positions (exactly the projection of each surface point, which interpolated
// window positions would not be). u_velocity: x, y scale NDC to the caller's units; z = 1 is the
// tests' mode, world positions instead (now in colour 0 by the caller, the previous one here).
uniform mat4 u_view_projection;
uniform mat4 u_previous_view_projection;
uniform vec3 u_velocity;
in vec3 v_previous_world;
layout(location = 1) out vec4 o_velocity;

void write_velocity(vec3 now)
{
    if (u_velocity.z > 0.5) {
        o_velocity = vec4(v_previous_world, 1.0);
        return;
    }
    vec4 a = u_view_projection * vec4(now, 1.0), b = u_previous_view_projection * vec4(v_previous_world, 1.0);
    // a point that was behind the previous camera has no previous pixel: no motion, not infinity
    o_velocity = vec4(b.w > 0.0 ? (a.xy / a.w - b.xy / b.w) * u_velocity.xy : vec2(0.0), 0.0, 1.0);
}

bool velocity_positions()
{
    return u_velocity.z > 0.5;
}
#endif
