// Compiled by tsc --noEmit against the package's declarations (make test-web): a page written against
// every public call, so that a declaration that disagrees with the module's use fails the build.
import * as THREE from 'three';
import {
  init, Asset, Crowd, Simulation, Renderer, CrowdbakeError, Scenario, bake, prepareBake, critterKinds, heapInUse, defaultLighting,
  type CrowdStats, type AssetInfo, type CritterKind,
} from 'crowdbake';
import { CrowdObject } from 'crowdbake/three';

export async function everyCall(gl: WebGL2RenderingContext, three: THREE.WebGLRenderer, camera: THREE.PerspectiveCamera) {
  await init({ wasm: new URL('crowdbake-wasm.wasm', import.meta.url) });
  const asset = await Asset.fromUrl('humanoid.crowd');
  const info: AssetInfo = asset.info;
  const walk: number = asset.findClip('walk');
  asset.clipIndex(info.clips[0].name);
  const crowd = new Crowd(asset, { capacity: 1000, lodPolicy: 'coverage', lodDistances: [8, 20] });
  crowd.configure({ lodBias: 1.5 });
  crowd.count = 10;
  crowd.strideMatching = true;
  crowd.setTransform(0, 1, 0, 2, 0.5);
  crowd.setVelocity(0, 1, 0);
  crowd.setScale(0, 1.1);
  crowd.setPhase(0, 0.25);
  crowd.setSpeed(0, 1.4);
  crowd.setVariant(0, { tint: [255, 0, 0], regionChoice: [1, 2], accessories: 1 });
  crowd.play(1, 'wave', { rate: 1, fade: 0.3, once: true });
  crowd.play(2, walk);
  crowd.remove(9);
  const record = crowd.get(0);
  const x: number = record.position[0] + x0(crowd.settings.worldSize);
  crowd.setTransforms(new Float32Array(30), new Float32Array(10));
  crowd.playMany(new Uint32Array(10), { rates: new Float32Array(10), fade: 0.2, first: 0 });
  crowd.setSpeeds(new Float32Array(10));
  crowd.setScales(new Float32Array(10).fill(1));
  crowd.setPhases(new Float32Array(10));
  crowd.setVelocities(new Float32Array(20));
  const { positions, yaws } = crowd.getTransforms();
  const sim = new Simulation(crowd, { scenario: 'gather', obstacles: [{ x, z: 0, radius: 2 }], spawn: { shirts: 1, idleClip: 'idle' } });
  sim.spawn(10);
  sim.scenario = 'mill';
  sim.separation = 'auto';
  sim.step(1 / 60);
  const renderer = new Renderer(gl, crowd, { mode: 'bones', upload: 'ring', renderer: 'auto' });
  const backend: 'webgl2' = renderer.backend;
  const rendererStatus: string = renderer.rendererStatus + backend;
  renderer.setTarget(null, 0, 0, 640, 360);
  const view = new Float32Array(16), projection = new Float32Array(16);
  crowd.update(1 / 60, { view, projection, viewportHeight: 360, renderer });
  renderer.render({ view, projection, shadows: true, ...defaultLighting, fogDensity: 0.01 });
  const stats: CrowdStats = crowd.stats;
  const drawn: number = stats.submitted + renderer.stats.draws + positions.length + yaws.length + Scenario.mill + heapInUse();
  const people = new CrowdObject(three, crowd, { shadows: false, shadowRadius: 40 });
  people.update(1 / 60, camera);
  people.restoreState = true;
  people.dispose();
  await prepareBake();
  const kinds: CritterKind[] = await critterKinds();
  await bake({ critter: kinds[kinds.length - 1].name, seed: 7 });
  const abort = new AbortController();
  try {
    const baked = await bake({ humanoid: true }, { bones: true, clips: ['walk'], forward: 'auto', ground: 'auto', signal: abort.signal },
      (fraction, stage) => console.log(fraction, stage));
    new Asset(baked.bytes).destroy();
  } catch (error) {
    if (error instanceof CrowdbakeError) console.log(error.code, error.message);
  }
  crowd.destroy();
  asset.destroy();
  return drawn;
}

function x0(size: number): number {
  return size * 0;
}
