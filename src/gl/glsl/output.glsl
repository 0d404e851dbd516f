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
// Motion vectors (crowd_gl_desc.velocity): where this pixel's surface point is now minus where it
// was a frame earlier. Now is the pixel itself (gl_FragCoord in the target viewport,
// u_velocity_viewport); then is the previous clip position the vertex stage passes, interpolated
// perspective-correct (so it is the clip position of this pixel's own surface point a frame
// earlier) and divided here, per pixel: exact for the drawn triangle. One varying and no matrix per
// pixel: each extra interpolated value costs a software rasteriser per pixel.
// u_velocity: x, y scale NDC to the caller's units; z = 1 is the tests' mode: the positions
// themselves (the window position now in colour 0, the previous clip position in 1).
// MRT: the colour pass's second target (output 1). VELOCITY_PASS (the separate velocity pass): the
// only output, 0; the shader's o_color is then a plain variable nobody reads.
uniform vec3 u_velocity;
uniform vec4 u_velocity_viewport; // x, y, width, height in pixels
in vec4 v_clip_previous;
#ifdef VELOCITY_PASS
layout(location = 0) out vec4 o_velocity;
#define CROWD_COLOR_OUTPUT vec4 o_color;
#else
layout(location = 1) out vec4 o_velocity;
#define CROWD_COLOR_OUTPUT layout(location = 0) out vec4 o_color;
#endif

vec4 crowd_velocity()
{
    vec2 now = (gl_FragCoord.xy - u_velocity_viewport.xy) / u_velocity_viewport.zw * 2.0 - 1.0;
    vec4 b = v_clip_previous;
    // a point that was behind the previous camera has no previous pixel: no motion, not infinity
    return vec4(b.w > 0.0 ? (now - b.xy / b.w) * u_velocity.xy : vec2(0.0), 0.0, 1.0);
}

// True where the caller writes nothing else: the velocity pass, and the tests' mode (colour 0 holds
// the position now).
bool write_velocity(out vec4 color)
{
#ifdef VELOCITY_PASS
    color = vec4(0.0);
    o_velocity = crowd_velocity();
    return true;
#else
    if (u_velocity.z > 0.5) {
        color = vec4(gl_FragCoord.xyz, 1.0);
        o_velocity = v_clip_previous;
        return true;
    }
    o_velocity = crowd_velocity();
    return false;
#endif
}
#else
#define CROWD_COLOR_OUTPUT layout(location = 0) out vec4 o_color;
#endif
