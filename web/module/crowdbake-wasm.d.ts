// The Emscripten factory behind crowdbake.mjs; use crowdbake.mjs's init() instead.
declare function createCrowdbakeWasm(options?: object): Promise<unknown>;
export default createCrowdbakeWasm;
