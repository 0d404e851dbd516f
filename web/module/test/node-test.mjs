// The package from Node (no GL): npm pack's file list, load, inspect, crowd, simulation, update, stats, bulk setters at
// 100k, errors carrying the C message, and the heap back to its size after 100 crowds.
//   node web/module/test/node-test.mjs dist/pkg build/humanoid.crowd
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [pkgDir = 'dist/pkg', assetPath = 'build/humanoid.crowd'] = process.argv.slice(2);
const cb = await import(pathToFileURL(path.resolve(pkgDir, 'crowdbake.mjs')));
const failures = [];
const check = (ok, what) => { if (!ok) { failures.push(what); console.log('FAIL ' + what); } };
const throwsWith = (fn, code, pattern, what) => {
  try {
    fn();
    check(false, `${what}: did not throw`);
  } catch (error) {
    check(error instanceof Error, `${what}: threw ${error}`);
    if (code) check(error.code === code, `${what}: code ${error.code}, expected ${code}`);
    check(pattern.test(error.message), `${what}: message "${error.message}" does not match ${pattern}`);
  }
};

// npm pack takes every file package.json names, and each is there
const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: pkgDir, encoding: 'utf8' });
const packed = pack.status === 0 ? JSON.parse(pack.stdout)[0].files.map((f) => f.path).sort() : [];
check(JSON.stringify(packed) === JSON.stringify([...manifest.files, 'package.json'].sort()),
  `npm pack: ${pack.stderr || JSON.stringify(packed)}`);
for (const target of Object.values(manifest.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e))))
  check(fs.existsSync(path.join(pkgDir, target)), `package.json exports ${target}, which is missing`);

throwsWith(() => new cb.Crowd(null), null, /init\(\) first/, 'a call before init');
await cb.init();
const bytes = fs.readFileSync(assetPath);
const asset = new cb.Asset(bytes);
check(asset.clips.length >= 4 && asset.clips.some((c) => c.role === 'locomotion'), 'clips with roles');
check(asset.findClip('Walk') >= 0 && asset.findClip('no such clip') === -1, 'findClip');
check(asset.sockets.includes('head'), 'sockets');
check(asset.lods.length >= 2 && asset.lods[0].triangles > asset.lods[1].triangles, 'LODs');
check(asset.info.notes && asset.info.notes.height > 1.5 && asset.info.notes.height < 2.0, 'bake notes (height)');

// Errors carry the C code and message; a refused .crowd says why.
throwsWith(() => new cb.Asset(new Uint8Array(64)), 'CROWD_ERROR_BAD_MAGIC', /CRWDBAKE/, 'not a .crowd');
const damaged = Uint8Array.from(bytes);
damaged[damaged.length >> 1] ^= 0x55;
throwsWith(() => new cb.Asset(damaged), null, /./, 'a damaged .crowd');
throwsWith(() => new cb.Crowd(asset, { capacity: 1e9 }), 'CROWD_ERROR_ARGUMENT', /capacity/, 'capacity too large');
throwsWith(() => new cb.Crowd(asset, { capacty: 10 }), null, /no option "capacty"/, 'a misspelt option');
throwsWith(() => new cb.Crowd(asset, { lodDistances: [10, 5] }), 'CROWD_ERROR_ARGUMENT', /lod_distances/, 'decreasing LOD distances');

const N = 100000;
const crowd = new cb.Crowd(asset, { capacity: N });
crowd.count = N;
throwsWith(() => crowd.setTransform(0, NaN, 0, 0), 'CROWD_ERROR_ARGUMENT', /finite/, 'a NaN position');
throwsWith(() => crowd.setTransform(N, 0, 0, 0), 'CROWD_ERROR_ARGUMENT', /instance/, 'an instance past the count');
throwsWith(() => crowd.play(0, 'fly'), 'CROWD_ERROR_ARGUMENT', /no clip "fly"/, 'an unknown clip');

// Bulk setters at 100k: one call each, and every record holds what was set.
const positions = new Float32Array(3 * N), yaws = new Float32Array(N), clips = new Uint32Array(N);
const speeds = new Float32Array(N);
for (let i = 0; i < N; i++) {
  positions.set([(i % 300) - 150, 0, Math.floor(i / 300) * 0.6 - 100], 3 * i);
  yaws[i] = (i % 628) / 100;
  clips[i] = i % asset.clips.length;
  speeds[i] = 1 + (i % 3) * 0.25;
}
let t0 = performance.now();
crowd.setTransforms(positions, yaws);
crowd.playMany(clips, { fade: 0 });
const tBulk = performance.now() - t0;
const walk = asset.findClip('walk');
const walkers = new Uint32Array(1000).fill(walk);
crowd.playMany(walkers, { first: 5000 });
crowd.setSpeeds(speeds.subarray(0, 1000), 5000);
for (const i of [0, 1, 777, N - 1]) {
  const r = crowd.get(i);
  check(Math.abs(r.position[0] - positions[3 * i]) < 1e-3 && Math.abs(r.position[2] - positions[3 * i + 2]) < 1e-3,
    `setTransforms: instance ${i} at ${r.position}`);
  check(Math.abs(r.yaw - yaws[i]) < 1e-3 || Math.abs(Math.abs(r.yaw - yaws[i]) - 2 * Math.PI) < 1e-3, `setTransforms: yaw of ${i}`);
  check((r.clips & 0xfff) === clips[i], `playMany: clip of ${i}`);
}
check(Math.abs(crowd.get(5500).rateA * asset.clips[walk].stride / 1 - speeds[500]) < 0.05 * speeds[500],
  `setSpeeds: instance 5500 walks at ${crowd.get(5500).rateA * asset.clips[walk].stride} m/s, set ${speeds[500]}`);
// one bad value stops the call and names the instance
const bad = positions.slice(0, 30);
bad[3 * 7 + 1] = Infinity;
throwsWith(() => crowd.setTransforms(bad, yaws.slice(0, 10), 40), 'CROWD_ERROR_ARGUMENT', /instance 47/, 'bulk: the failing instance');
throwsWith(() => crowd.setTransforms(positions.subarray(0, 5), yaws.subarray(0, 2)), null, /holds 5 values, expected 6/, 'bulk: sizes');
throwsWith(() => crowd.setTransforms([0, 0, 0], new Float32Array(1)), null, /Float32Array/, 'bulk: a plain array');
crowd.setTransforms(positions, yaws); // back to the full layout after the failed call
const transforms = crowd.getTransforms();
check(transforms.positions.length === 3 * N && Math.abs(transforms.positions[3 * 999] - positions[3 * 999]) < 1e-3, 'getTransforms');
// sockets: every head is over its instance, above its feet; a list gives the same numbers
const heads = crowd.getSocketTransforms('head');
let off = 0, lowest = Infinity;
for (let i = 0; i < N; i++) {
  off = Math.max(off, Math.hypot(heads[12 * i + 3] - transforms.positions[3 * i], heads[12 * i + 11] - transforms.positions[3 * i + 2]));
  lowest = Math.min(lowest, heads[12 * i + 7] - transforms.positions[3 * i + 1]);
}
check(heads.length === 12 * N && off < 0.6 && lowest > 0.5, `getSocketTransforms: heads ${off} m off their instances, ${lowest} m up at least`);
const some = crowd.getSocketTransforms('head', new Uint32Array([999, 5]));
check(some[3] === heads[12 * 999 + 3] && some[12 + 7] === heads[12 * 5 + 7], 'getSocketTransforms: an index list');
throwsWith(() => crowd.getSocketTransforms('tail'), 'CROWD_ERROR_ARGUMENT', /no socket "tail"/, 'an unknown socket');
throwsWith(() => crowd.getSocketTransforms('head', new Uint32Array([N + 5])), 'CROWD_ERROR_ARGUMENT', /indices\[0\]/,
  'a socket query for an instance out of range');

// update with a camera: stats as a plain object
const view = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -2, -40, 1]);
const projection = new Float32Array([1.3, 0, 0, 0, 0, 1.73, 0, 0, 0, 0, -1.001, -1, 0, 0, -1.0005, 0]);
crowd.update(1 / 60, { view, projection, viewportHeight: 720 });
const stats = crowd.stats;
check(stats.simulated === N && stats.submitted > 0 && stats.submitted < N && stats.draws > 0, `stats: ${JSON.stringify(stats).slice(0, 200)}`);
check(Math.abs(stats.time - 1 / 60) < 1e-6, 'stats.time');
throwsWith(() => crowd.update(1 / 60, { view: new Float32Array(15), projection }), null, /16 numbers/, 'a short matrix');
crowd.destroy();
throwsWith(() => crowd.setTransform(0, 0, 0, 0), null, /destroyed/, 'a call after destroy');

// Events: footsteps of walkers (markerEvents on) and a one-shot's finish, as plain objects.
{
  const walkClip = asset.findClip('walk'), waveClip = asset.findClip('wave');
  const walkers = new cb.Crowd(asset, { capacity: 64, markerEvents: 1 });
  walkers.count = 10;
  walkers.playMany(new Uint32Array(10).fill(walkClip));
  walkers.play(9, waveClip, { once: true });
  const perCycle = asset.clips[walkClip].markers.filter((m) => m.name.startsWith('footstep')).length;
  let steps = 0, finished = [];
  const seconds = 3 * asset.clips[walkClip].duration; // three cycles at the authored rate
  for (let t = 0; t < seconds - 1e-4; t += 1 / 60) {
    walkers.update(1 / 60, { view, projection });
    for (const e of walkers.events) {
      if (e.kind === 'marker' && e.instance === 0 && e.marker.startsWith('footstep')) steps++;
      if (e.kind === 'finished') finished.push(e);
    }
  }
  check(perCycle === 2 && steps === 3 * perCycle, `events: ${steps} footsteps of walker 0 in three cycles (${perCycle} a cycle)`);
  check(finished.length === 1 && finished[0].instance === 9 && finished[0].clip === waveClip && finished[0].holding,
    `events: the wave's finish ${JSON.stringify(finished)}`);
  walkers.destroy();
}

// The simulation: spawn, scenario, step; the crowd moves.
const simCrowd = new cb.Crowd(asset, { capacity: 2000 });
const sim = new cb.Simulation(simCrowd, { scenario: 'stampede', seed: 5, obstacles: [{ x: 0, z: 0, radius: 4 }] });
sim.spawn(2000);
const before = simCrowd.get(10).position;
for (let i = 0; i < 30; i++) {
  sim.step(1 / 30);
  simCrowd.update(1 / 30, { view, projection });
}
const after = simCrowd.getTransforms().positions.slice(30, 33);
check(Math.hypot(after[0] - before[0], after[2] - before[2]) > 1, `the simulation moves agents (${before} -> ${after})`);
check(simCrowd.stats.simulation && simCrowd.stats.simulation.rewritten >= 0, 'simulation stats');
sim.scenario = 'gather';
sim.separation = false;
throwsWith(() => { sim.scenario = 'riot'; }, null, /scenario is one of/, 'an unknown scenario');
throwsWith(() => new cb.Simulation(simCrowd), null, /already has a simulation/, 'a second simulation');
throwsWith(() => asset.destroy(), null, /crowds and renderers of this asset first/, 'destroying an asset in use');
simCrowd.destroy();

// 100 crowds with simulations made and destroyed: the heap comes back to its size.
const cycle = () => {
  const c = new cb.Crowd(asset, { capacity: 5000 });
  const s = new cb.Simulation(c, { scenario: 'wander' });
  s.spawn(5000);
  s.step(1 / 60);
  c.update(1 / 60, { view, projection });
  c.setTransforms(positions.subarray(0, 300), yaws.subarray(0, 100));
  c.destroy();
};
cycle();
const heapBefore = cb.heapInUse();
t0 = performance.now();
for (let i = 0; i < 100; i++) cycle();
const heapAfter = cb.heapInUse();
check(heapAfter === heapBefore, `100 crowds made and destroyed: heap ${heapBefore} -> ${heapAfter} bytes`);
asset.destroy();
check(cb.heapInUse() < heapBefore, 'the asset gives its bytes back');

console.log(`module from Node: bulk transforms + clips for 100k in ${tBulk.toFixed(1)} ms; 100 crowds of 5k made, ` +
  `stepped, destroyed in ${(performance.now() - t0).toFixed(0)} ms, heap ${heapBefore} -> ${heapAfter} bytes`);
console.log(failures.length ? `node-test: ${failures.length} failure(s)` : 'node-test: ok');
process.exit(failures.length ? 1 : 0);
