// Appended inside the wasm module's scope (--post-js): lets crowdbake.mjs hand the C renderer a
// WebGL2 context the page made (three.js's, or any engine's), and switch between several.
Module['registerContext'] = function (gl) {
  return GL.registerContext(gl, { majorVersion: 2, minorVersion: 0, enableExtensionsByDefault: true });
};
Module['makeContextCurrent'] = function (handle) {
  return GL.makeContextCurrent(handle);
};
Module['deleteContext'] = function (handle) {
  if (GL.currentContext && GL.currentContext.handle === handle) GL.makeContextCurrent(0);
  delete GL.contexts[handle];
};
// A framebuffer the page made, under the integer name the C code binds (crowd_gl_set_target).
Module['framebufferName'] = function (framebuffer) {
  if (!framebuffer) return 0;
  if (framebuffer.name === undefined) {
    var name = GL.getNewId(GL.framebuffers);
    framebuffer.name = name;
    GL.framebuffers[name] = framebuffer;
  }
  return framebuffer.name;
};
