// The page's baker, in a Web Worker so that the page keeps drawing: receives the source files and the
// options from crowdbake.mjs's bake(), runs the C baker (crowdbake-bake.wasm) on them and posts back
// progress, warnings, and the .crowd bytes or the baker's refusal. One worker per bake: cancelling is
// terminating it, which frees everything.
import createCrowdbakeBake from './crowdbake-bake.mjs';

// The baker names crowd_bake_desc's fields and the worker's file paths; a page's user set options and
// picked files: "crowd_bake_desc.max_bytes" reads "maxBytes", "/input/Fox.glb" reads "Fox.glb".
const optionNames = { clip_names: 'clips', lod_count: 'lods' };
const userWords = (message) => message.replace(/\/input\//g, '')
  .replace(/crowd_bake_desc\.([a-z0-9_]+)/g, (_, field) => optionNames[field] ?? field.replace(/_([a-z])/g, (m, c) => c.toUpperCase()));

const safeName = (name) => String(name).split(/[\\/]/).pop().replace(/^\.+/, '_') || 'input';

self.onmessage = async ({ data }) => {
  const { compiled, files, main, critter, options } = data;
  try {
    const wasm = await createCrowdbakeBake({
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance));
        return {};
      },
      onBakeProgress: (fraction, stage) => self.postMessage({ type: 'progress', fraction, stage }),
      onBakeWarning: (message) => self.postMessage({ type: 'warning', message: userWords(message) }),
    });
    let source = critter;
    if (!critter) {
      wasm.FS.mkdir('/input');
      for (const [name, bytes] of files) wasm.FS.writeFile('/input/' + safeName(name), new Uint8Array(bytes));
      source = '/input/' + safeName(main);
    }
    const call = (text) => {
      const bytes = wasm.lengthBytesUTF8(text) + 1;
      const ptr = wasm._malloc(bytes);
      wasm.stringToUTF8(text, ptr, bytes);
      return ptr;
    };
    const sourcePtr = call(source), optionsPtr = call(JSON.stringify(options));
    const sizePtr = wasm._malloc(4), errorPtr = wasm._malloc(516); // crowd_error: code, then message[512]
    const result = wasm._cbw_bake(sourcePtr, optionsPtr, sizePtr, errorPtr);
    if (result !== 0) {
      self.postMessage({ type: 'error', code: wasm.UTF8ToString(wasm._crowd_result_name(result)),
        message: userWords(wasm.UTF8ToString(errorPtr + 4)) });
      return;
    }
    const size = wasm.HEAPU32[sizePtr >> 2];
    const bytes = wasm.HEAPU8.slice(wasm._cbw_bake_bytes(), wasm._cbw_bake_bytes() + size);
    const summary = JSON.parse(wasm.UTF8ToString(wasm._cbw_bake_summary()));
    self.postMessage({ type: 'done', bytes, summary }, [bytes.buffer]);
  } catch (error) {
    self.postMessage({ type: 'error', code: 'CROWD_ERROR_WORKER', message: String(error && error.message || error) });
  }
};
