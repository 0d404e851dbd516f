// The page's baker, in a Web Worker so that the page keeps drawing: receives the source files and the
// options from crowdbake.mjs's bake(), runs the C baker (crowdbake-bake.wasm) on them and posts back
// progress, warnings, and the .crowd bytes or the baker's refusal. A worker bakes one file at a time
// and may be handed the next one (its wasm instance is kept); cancelling terminates it, which frees
// everything.
import createCrowdbakeBake from './crowdbake-bake.mjs';

// The baker names crowd_bake_desc's fields and the worker's file paths; a page's user set options and
// picked files: "crowd_bake_desc.max_bytes" reads "maxBytes", "/input/Fox.glb" reads "Fox.glb".
const optionNames = { clip_names: 'clips', lod_count: 'lods' };
const userWords = (message) => message.replace(/\/input\//g, '')
  .replace(/crowd_bake_desc\.([a-z0-9_]+)/g, (_, field) => optionNames[field] ?? field.replace(/_([a-z])/g, (m, c) => c.toUpperCase()));

const safeName = (name) => String(name).split(/[\\/]/).pop().replace(/^\.+/, '_') || 'input';

let instance = null; // the wasm, made on the first bake and kept for the next

function start(compiled) {
  if (!instance) {
    instance = createCrowdbakeBake({
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(compiled, imports).then((made) => receive(made));
        return {};
      },
      onBakeProgress: (fraction, stage) => self.postMessage({ type: 'progress', fraction, stage }),
      onBakeWarning: (message) => self.postMessage({ type: 'warning', message: userWords(message) }),
    });
  }
  return instance;
}

// The input files in the worker's file system, the last bake's gone.
function writeInput(wasm, files) {
  const { FS } = wasm;
  if (!FS.analyzePath('/input').exists) FS.mkdir('/input');
  for (const name of FS.readdir('/input')) if (name !== '.' && name !== '..') FS.unlink('/input/' + name);
  for (const [name, bytes] of files) FS.writeFile('/input/' + safeName(name), new Uint8Array(bytes));
}

function cString(wasm, text) {
  const bytes = wasm.lengthBytesUTF8(text) + 1;
  const ptr = wasm._malloc(bytes);
  wasm.stringToUTF8(text, ptr, bytes);
  return ptr;
}

self.onmessage = async ({ data }) => {
  const { compiled, files, main, critter, options } = data;
  try {
    const wasm = await start(compiled);
    if (data.kinds) {
      self.postMessage({ type: 'kinds', kinds: JSON.parse(wasm.UTF8ToString(wasm._cbw_critter_kinds_json())) });
      return;
    }
    if (!critter) writeInput(wasm, files);
    const source = critter || '/input/' + safeName(main);
    const sourcePtr = cString(wasm, source), optionsPtr = cString(wasm, JSON.stringify(options));
    const sizePtr = wasm._malloc(4), errorPtr = wasm._malloc(516); // crowd_error: code, then message[512]
    const result = wasm._cbw_bake(sourcePtr, optionsPtr, sizePtr, errorPtr);
    const size = wasm.HEAPU32[sizePtr >> 2];
    const message = { type: 'error', code: wasm.UTF8ToString(wasm._crowd_result_name(result)),
      message: userWords(wasm.UTF8ToString(errorPtr + 4)) };
    for (const ptr of [sourcePtr, optionsPtr, sizePtr, errorPtr]) wasm._free(ptr);
    if (result !== 0) {
      self.postMessage(message);
      return;
    }
    const bytes = wasm.HEAPU8.slice(wasm._cbw_bake_bytes(), wasm._cbw_bake_bytes() + size);
    const summary = JSON.parse(wasm.UTF8ToString(wasm._cbw_bake_summary()));
    self.postMessage({ type: 'done', bytes, summary }, [bytes.buffer]);
  } catch (error) {
    self.postMessage({ type: 'error', code: 'CROWD_ERROR_WORKER', message: String(error && error.message || error) });
  }
};
