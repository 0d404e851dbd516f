// The module in a page with its own WebGL2 context, no three.js: bulk setters at 100k, CYCLES crowds each
// with a renderer made, drawn and destroyed (the heap comes back to its size), two renderers on two
// contexts, a bad call throwing the C message, the renderer option's fallback saying why WebGPU is
// unavailable. window.moduleResults holds what was measured.
import { init, Asset, Crowd, Simulation, Renderer, CrowdbakeError, heapInUse } from '../pkg/crowdbake.mjs';

const results = { failures: [] };
const check = (ok, what) => { if (!ok) results.failures.push(what); };
try {
  await init();
  const asset = await Asset.fromUrl(new URL('../assets/humanoid.crowd', import.meta.url));
  const gl = document.getElementById('canvas').getContext('webgl2', { antialias: false, preserveDrawingBuffer: true });
  const view = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1.5, -12, 1]);
  const projection = new Float32Array([1.0, 0, 0, 0, 0, 1.73, 0, 0, 0, 0, -1.001, -1, 0, 0, -1.0005, 0]);

  // 100k through the bulk setters: one call each
  const N = 100000;
  const big = new Crowd(asset, { capacity: N });
  big.count = N;
  const positions = new Float32Array(3 * N), yaws = new Float32Array(N), clips = new Uint32Array(N).fill(1);
  for (let i = 0; i < N; i++) positions.set([(i % 316) - 158, 0, Math.floor(i / 316) - 158], 3 * i);
  const t0 = performance.now();
  big.setTransforms(positions, yaws);
  big.playMany(clips);
  results.bulkMs = performance.now() - t0;
  check(big.get(N - 1).position[0] === positions[3 * (N - 1)], 'bulk: the last instance');
  big.destroy();

  // a crowd with a renderer draws pixels into the page's own context
  const cycle = (draw) => {
    const crowd = new Crowd(asset, { capacity: 500 });
    const sim = new Simulation(crowd, { scenario: 'wander', seed: 1 });
    sim.spawn(500);
    const row = new Float32Array(60), facing = new Float32Array(20); // 20 people in front of the camera
    for (let i = 0; i < 20; i++) row.set([-9.5 + i, 0, 0], 3 * i);
    crowd.setTransforms(row, facing);
    const renderer = new Renderer(gl, crowd);
    crowd.update(1 / 60, { view, projection, viewportHeight: 180 });
    gl.clearColor(0, 0, 0, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    renderer.render({ view, projection, shadows: true });
    if (draw) {
      const pixels = new Uint8Array(320 * 180 * 4);
      gl.readPixels(0, 0, 320, 180, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
      results.litPixels = pixels.filter((v, i) => i % 4 === 1 && v > 0).length;
      results.drawStats = renderer.stats;
    }
    crowd.destroy(); // and its simulation and renderer
  };
  cycle(true);
  check(results.litPixels > 500, `the renderer drew ${results.litPixels} pixels`);
  // The heap is compared to the byte (dlmalloc's bytes in use) after the first cycle has made its
  // one-time allocations, so a cycle that keeps any allocation shows after one; the further cycles
  // are for growth that comes in steps (a table doubling as it fills). Each cycle links the
  // renderer's programs, slow on SwiftShader, which is why the count stays this small.
  const CYCLES = 20;
  const before = heapInUse();
  for (let i = 0; i < CYCLES; i++) cycle(false);
  results.cycles = CYCLES;
  results.heapBefore = before;
  results.heapAfter = heapInUse();
  check(results.heapAfter === before, `${CYCLES} crowds with renderers: heap ${before} -> ${results.heapAfter}`);

  // two renderers on two contexts, one crowd each, drawn in turn
  const other = document.createElement('canvas');
  other.width = 160; other.height = 90;
  const gl2 = other.getContext('webgl2');
  const a = new Crowd(asset, { capacity: 10 }), b = new Crowd(asset, { capacity: 10 });
  a.count = b.count = 10;
  const ra = new Renderer(gl, a), rb = new Renderer(gl2, b);
  for (let i = 0; i < 3; i++) for (const [c, r] of [[a, ra], [b, rb]]) {
    c.update(1 / 60, { view, projection, renderer: r });
    r.render({ view, projection });
  }
  check(gl.getError() === 0 && gl2.getError() === 0, 'two contexts: no GL error');
  a.destroy();
  b.destroy();

  // a bad call throws the C message
  try {
    new Renderer(gl, new Crowd(asset, { capacity: 4 }), { tint: 'region', tintRegion: 99 });
    check(false, 'a bad renderer option was accepted');
  } catch (error) {
    results.badCall = `${error.code}: ${error.message}`;
    check(error instanceof CrowdbakeError && /tint_region 99/.test(error.message), `bad call: ${error}`);
  }

  // the renderer option: WebGL2 draws; this browser runs without the WebGPU flags, so 'auto' says
  // why WebGPU is unavailable once the browser has answered, and a misspelt choice is refused
  const small = new Crowd(asset, { capacity: 4 });
  const auto = new Renderer(gl, small), chosen = new Renderer(gl, small, { renderer: 'webgl2' });
  for (let i = 0; i < 100 && /asking for a device/.test(auto.rendererStatus); i++)
    await new Promise((done) => setTimeout(done, 50));
  results.rendererStatus = auto.rendererStatus;
  check(auto.backend === 'webgl2' && /^renderer: WebGL2 \(WebGPU unavailable: .+\)$/.test(auto.rendererStatus),
        `renderer auto without WebGPU: ${auto.backend}, ${auto.rendererStatus}`);
  check(chosen.rendererStatus === 'renderer: WebGL2 (chosen)', `renderer webgl2: ${chosen.rendererStatus}`);
  try {
    new Renderer(gl, small, { renderer: 'vulkan' });
    check(false, 'renderer: vulkan was accepted');
  } catch (error) {
    check(error instanceof TypeError && /renderer is one of auto, webgpu, webgl2/.test(error.message), `renderer: ${error}`);
  }
  small.destroy();
} catch (error) {
  results.failures.push(`threw: ${error && error.stack || error}`);
}
window.moduleResults = results;
