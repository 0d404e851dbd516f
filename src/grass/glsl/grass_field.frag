// The interaction fields' passes (src/grass/grass_fields.c): the trample pair's decay (source ->
// destination, shifted by the window's move) and the discs stamped on top (blended).
out vec4 o_field;
#ifdef STAMP
in vec2 v_local;
uniform int u_cut; // 1: the cut field (MAX blending), 0: the trample field (alpha blending)
void main()
{
    float r = length(v_local);
    if (r > 1.0)
        discard;
    float w = 1.0 - smoothstep(0.55, 1.0, r);
    if (u_cut == 1) {
        o_field = vec4(w);
        return;
    }
    // bend away from the disc's centre (none right under it); rgb blends towards this by w, the age
    // (alpha) falls to age * (1 - w) (glBlendFuncSeparate in grass_fields.c)
    vec2 dir = r > 1e-3 ? v_local / r * min(r * 2.5, 1.0) : vec2(0.0);
    o_field = vec4(dir * 0.5 + 0.5, 1.0, w);
}
#else
uniform highp sampler2D u_source;
uniform ivec3 u_shift; // texels the window moved (x, z), the resolution
uniform vec2 u_step;   // dt / hold (the age's step), dt / recovery (the trail's fall once held out)
void main()
{
    ivec2 p = ivec2(gl_FragCoord.xy) + u_shift.xy;
    if (p.x < 0 || p.y < 0 || p.x >= u_shift.z || p.y >= u_shift.z) { // ground the window just reached
        o_field = vec4(0.5, 0.5, 0.0, 1.0);
        return;
    }
    vec4 s = texelFetch(u_source, p, 0);
    float age = s.a + u_step.x;
    float past = u_step.x > 0.0 ? clamp((age - 1.0) / u_step.x, 0.0, 1.0) : 0.0; // of this step, past the hold
    float b = max(s.b - u_step.y * past, 0.0);
    o_field = b > 0.0 ? vec4(s.rg, b, min(age, 1.0)) : vec4(0.5, 0.5, 0.0, 1.0);
}
#endif
