// The bake in a Web Worker against the native baker: Fox.glb baked here with the options the demo's
// fox.crowd was baked with natively (--scale 0.01 --bones) must give the same clips, roles, frames,
// strides and placement, and LODs within a bound; a .gltf with its .bin; a refused file, a size cap
// and a cancel each reject with their reason; the page keeps drawing frames meanwhile.
// window.bakeResults holds what was measured; the runner checks it.
import { init, bake, critterKinds, Asset, Crowd, Renderer, CrowdbakeError } from '../pkg/crowdbake.mjs';

const results = { failures: [] };
const check = (ok, what) => { if (!ok) results.failures.push(what); };
const fetchBytes = async (url) => new Uint8Array(await (await fetch(url)).arrayBuffer());

// frame intervals while the worker bakes: the main thread must stay free
let frames = [], last = performance.now(), running = true;
(function tick(now) {
  frames.push(now - last);
  last = now;
  if (running) requestAnimationFrame(tick);
})(performance.now());
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];

// The page's bake against the native one: the same clips, roles, frames and loops; strides, durations,
// height and ground offset as numbers apart; LOD triangle counts side by side; whether the bytes are
// the same but for the source path the file records.
async function compareWithNative(bytes, nativeUrl) {
  const nativeBytes = await fetchBytes(nativeUrl);
  const here = new Asset(bytes), native = new Asset(nativeBytes);
  const a = here.info, b = native.info;
  const clips = (info) => JSON.stringify(info.clips.map((c) => [c.name, c.role, c.frames, c.loop]));
  check(clips(a) === clips(b), `${nativeUrl}: clips, roles or frames differ: ${clips(a)} against ${clips(b)}`);
  check(a.notes.forward === b.notes.forward && a.notes.up === b.notes.up && a.notes.boneMode === b.notes.boneMode,
    `${nativeUrl}: placement ${JSON.stringify(a.notes)} against ${JSON.stringify(b.notes)}`);
  const out = {
    sameSize: bytes.length === nativeBytes.length,
    strideDiff: Math.max(...a.clips.map((c, i) => Math.abs(c.stride - b.clips[i].stride))),
    durationDiff: Math.max(...a.clips.map((c, i) => Math.abs(c.duration - b.clips[i].duration))),
    heightDiff: Math.abs(a.notes.height - b.notes.height),
    groundDiff: Math.abs(a.notes.groundOffset - b.notes.groundOffset),
    boundsDiff: Math.max(...[0, 1, 2].map((k) => Math.max(Math.abs(a.bounds.min[k] - b.bounds.min[k]),
      Math.abs(a.bounds.max[k] - b.bounds.max[k])))),
    lods: a.lods.map((l, i) => [l.triangles, b.lods[i] && b.lods[i].triangles]),
  };
  here.destroy();
  native.destroy();
  return out;
}

async function rejects(promise, what) {
  try {
    await promise;
    check(false, `${what}: resolved`);
    return null;
  } catch (error) {
    return error;
  }
}

try {
  await init();
  const fox = await fetchBytes('./Fox.glb');
  const stages = new Set();
  frames = [];
  const t0 = performance.now();
  const baked = await bake(new File([fox], 'Fox.glb'), { scale: 0.01, bones: true }, (f, stage) => stages.add(stage));
  results.bakeMs = performance.now() - t0;
  results.framesWhileBaking = { count: frames.length, median: median(frames), max: Math.max(...frames) };
  results.stages = [...stages];
  const t1 = performance.now(); // again, the wasm compiled: a worker's start, the read and the bake
  const warm = await bake(new File([fox], 'Fox.glb'), { scale: 0.01, bones: true });
  results.bakeWarmMs = performance.now() - t1;
  results.bakeInsideMs = warm.summary.ms; // crowd_bake's own clock, the glTF read not included
  // the second bake ran in the worker the first one left (its wasm kept): the same bytes
  check(warm.bytes.length === baked.bytes.length && warm.bytes.every((v, i) => v === baked.bytes[i]),
    'a bake in a reused worker differs from the first');
  const here = new Asset(baked.bytes);
  results.fox = await compareWithNative(baked.bytes, './fox-native.crowd');
  const t2 = performance.now();
  const humanoid = await bake({ humanoid: true }, { bones: true });
  results.humanoidMs = performance.now() - t2;
  results.humanoidInsideMs = humanoid.summary.ms;
  results.humanoid = await compareWithNative(humanoid.bytes, './humanoid-native.crowd');
  results.summary = { bytes: baked.summary.bytes, vertices: baked.summary.vertices, warnings: baked.warnings };
  // the baked asset draws
  const gl = document.getElementById('canvas').getContext('webgl2');
  const crowd = new Crowd(here, { capacity: 4 });
  crowd.count = 4;
  const renderer = new Renderer(gl, crowd);
  const view = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.5, -4, 1]);
  const projection = new Float32Array([1.0, 0, 0, 0, 0, 1.73, 0, 0, 0, 0, -1.001, -1, 0, 0, -0.2, 0]);
  crowd.update(0, { view, projection });
  renderer.render({ view, projection });
  check(renderer.stats.draws > 0, 'the baked fox is not drawn');
  crowd.destroy();
  here.destroy();

  // a .gltf with its .bin
  const gltf = await bake({ files: [new File([await fetchBytes('./RiggedSimple.gltf')], 'RiggedSimple.gltf'),
    new File([await fetchBytes('./RiggedSimple0.bin')], 'RiggedSimple0.bin')] });
  results.gltfClips = gltf.summary.asset.clips.length;
  // a refused file keeps its reason
  let error = await rejects(bake(new File([await fetchBytes('./invalid_syntax.gltf')], 'invalid_syntax.gltf')), 'invalid glTF');
  results.refused = error && `${error.code}: ${error.message}`;
  check(error instanceof CrowdbakeError && /^invalid_syntax.gltf: JSON: syntax error/.test(error.message), `invalid glTF: ${error}`);
  // the memory cap
  error = await rejects(bake(fox, { scale: 0.01, maxBytes: 100000 }), 'size cap');
  results.capped = error && `${error.code}: ${error.message}`;
  check(error instanceof CrowdbakeError && error.code === 'CROWD_ERROR_LIMIT' && /maxBytes 100000/.test(error.message),
    `size cap: ${error}`);
  // an unknown option
  error = await rejects(bake(fox, { sclae: 0.01 }), 'unknown option');
  check(error instanceof CrowdbakeError && /unknown option "sclae"/.test(error.message), `unknown option: ${error}`);
  error = await rejects(bake(fox, { fps: '30' }), 'a string for a number');
  check(error instanceof CrowdbakeError && /fps: expected a number/.test(error.message), `fps as a string: ${error}`);
  error = await rejects(bake(fox, { frames: 2.5 }), 'a fraction of a frame');
  check(error instanceof CrowdbakeError && /frames: expected a whole number/.test(error.message), `frames 2.5: ${error}`);
  error = await rejects(bake(fox, { fps: 1e6 }), 'fps out of range');
  check(error instanceof CrowdbakeError && /fps/.test(error.message), `fps 1e6: ${error}`);
  // cancel at the first progress report, then bake again
  const abort = new AbortController();
  error = await rejects(bake(fox, { scale: 0.01, signal: abort.signal }, () => abort.abort()), 'cancel');
  check(error && error.name === 'AbortError', `cancel: ${error}`);
  const again = await bake({ critter: 'quad', seed: 42 });
  results.critter = { clips: again.summary.asset.clips.map((c) => `${c.name}:${c.role}`), bytes: again.bytes.length };
  // the critter kinds, asked of the baker; the last one bakes
  const kinds = await critterKinds();
  results.kinds = kinds.map((k) => k.name);
  check(kinds.length >= 40 && new Set(results.kinds).size === kinds.length && kinds.every((k) => k.summary.length > 10),
    `critterKinds: ${kinds.length} kinds, ${new Set(results.kinds).size} distinct names`);
  const last = await bake({ critter: kinds[kinds.length - 1].name, seed: 3 });
  check(last.summary.asset.clips.length === 3, `critter ${kinds[kinds.length - 1].name}: ${last.summary.asset.clips.length} clips`);
  error = await rejects(bake({ critter: 'dragon', seed: 1 }), 'unknown critter');
  check(error instanceof CrowdbakeError && /not a critter/.test(error.message), `unknown critter: ${error}`);
} catch (error) {
  results.failures.push(`threw: ${error && error.stack || error}`);
}
running = false;
window.bakeResults = results;
