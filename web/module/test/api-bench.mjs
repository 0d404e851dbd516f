// The module's per-frame cost on crowd-bench's scene (demo/scene_probe.c, seed 000's benchmark): the
// 26 spiral obstacles, wander, seed 7, one thread, the seed's camera, 1080 px tall. Each frame is
// Simulation.step and Crowd.update through the JavaScript API, timed from JavaScript, exactly the work
// the demo's measureScene times inside C. window.measureApi(count, warmup, frames) -> median ms.
import { init, Asset, Crowd, Simulation } from '../pkg/crowdbake.mjs';

function lookAt(eye, target) {
  const f = [0, 1, 2].map((k) => target[k] - eye[k]);
  const fl = Math.hypot(...f);
  f.forEach((v, k) => { f[k] = v / fl; });
  const s = [f[1] * 0 - f[2] * 1, f[2] * 0 - f[0] * 0, f[0] * 1 - f[1] * 0]; // f x up, up = +Y
  const sl = Math.hypot(...s);
  s.forEach((v, k) => { s[k] = v / sl; });
  const u = [s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return new Float32Array([s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
    -dot(s, eye), -dot(u, eye), dot(f, eye), 1]);
}

function perspective(fovy, aspect, near, far) {
  const t = 1 / Math.tan(fovy / 2);
  return new Float32Array([t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, (far + near) / (near - far), -1,
    0, 0, (2 * far * near) / (near - far), 0]);
}

await init();
const asset = await Asset.fromUrl(new URL('../assets/humanoid.crowd', import.meta.url));
const camera = { view: lookAt([28, 16, 44], [0, 1.2, 0]), projection: perspective((58 * Math.PI) / 180, 16 / 9, 0.3, 900),
  viewportHeight: 1080 };
const obstacles = Array.from({ length: 26 }, (_, i) => {
  const angle = 0.9 * i, radius = 10 + 6.5 * i;
  return { x: radius * Math.cos(angle), z: radius * Math.sin(angle), radius: 1.9 };
});

window.measureApi = (count, warmup, frames) => {
  const crowd = new Crowd(asset, { capacity: count, worldSize: 420, chunkSize: 24, threads: 1 });
  const sim = new Simulation(crowd, { scenario: 'wander', obstacles, seed: 7 });
  sim.spawn(count);
  const times = [];
  for (let f = 0; f < warmup + frames; f++) {
    const t0 = performance.now();
    sim.step(1 / 60);
    crowd.update(1 / 60, camera);
    if (f >= warmup) times.push(performance.now() - t0);
  }
  crowd.destroy();
  times.sort((a, b) => a - b);
  return frames % 2 ? times[frames >> 1] : (times[frames / 2 - 1] + times[frames / 2]) / 2;
};
window.apiBenchReady = true;
