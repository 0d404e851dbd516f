// Far shadows (blob.vert): a multiplier for what the framebuffer holds (blend DST_COLOR x ZERO).
in vec2 v_local;
in float v_fog;
uniform vec3 u_color; // the ground's shadowed / lit ratio, display-encoded (blob_shadow.c)
out vec4 o_color;

void main()
{
    // full darkness over the inner third, a smooth rim: no hard edge at any distance
    float a = (1.0 - smoothstep(0.35, 1.0, length(v_local))) * v_fog;
    if (a <= 0.0)
        discard;
    o_color = vec4(mix(vec3(1.0), u_color, a), 1.0);
}
