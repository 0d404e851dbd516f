// The interaction fields' passes (src/grass/grass_fields.c). DECAY: one full-screen triangle over
// the destination of the trample pair. STAMP: one quad per instance, a disc in the field's texels.
#ifdef STAMP
layout(location = 0) in vec4 i_stamp; // world x, z, radius (m), unused
uniform vec4 u_field;                 // the field's -x/-z corner (world), 1 / its extent, unused
out vec2 v_local;
void main()
{
    vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 2.0 - 1.0; // a 4-vertex strip
    vec2 uv = (i_stamp.xy + corner * i_stamp.z - u_field.xy) * u_field.z;
    v_local = corner;
    gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}
#else
void main()
{
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
#endif
