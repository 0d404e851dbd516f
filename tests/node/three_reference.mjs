// three.js's GLTFLoader as an independent reader: for each listed asset and clip, the box around
// every skinned (and morphed) vertex at each frame must match what crowdbake's reader builds
// (gltf_frame_bounds prints ours). Usage: node three_reference.mjs <gltf_frame_bounds> <assets dir>
import { readFileSync } from 'fs';
import { execFileSync } from 'child_process';
globalThis.self = globalThis; // GLTFLoader expects a browser global
const warn = console.warn;
const error = console.error;
console.warn = (...a) => { if (!String(a[0]).includes('texture')) warn(...a); }; // textures cannot decode in Node
console.error = (...a) => { if (!String(a[0]).includes('texture')) error(...a); };
// FileLoader (data: URIs of .gltf buffers) reports progress with a browser event class
globalThis.ProgressEvent ??= class extends Event { constructor(type, init) { super(type); Object.assign(this, init); } };
const THREE = await import('three');
const { GLTFLoader } = await import('three/examples/jsm/loaders/GLTFLoader.js');

const [helper, dir] = process.argv.slice(2);
const cases = [
  ['Fox.glb', 'Walk'], ['Fox.glb', 'Run'], ['RobotExpressive.glb', 'Walking'], ['RobotExpressive.glb', 'Running'],
  ['RobotExpressive.glb', 'Wave'], ['CesiumMan.glb', null], ['CesiumMan_BlenderReexport.glb', 'Anim_0'],
  ['RiggedFigure.glb', null], ['RiggedSimple.glb', null],
  // its rotation keys have lengths 1 +- 2.3e-4: crowdbake normalises them, three.js does not
  ['SimpleSkin.gltf', null, 1e-3], ['Mannequiny.glb', 'run_root.001'],
  ['GodotPlatformerPlayer.glb', 'run'], ['GodotPlatformerEnemy.glb', 'walk'], ['BoxAnimated.glb', null],
  ['AnimatedMorphCube.glb', 'Square'], ['MorphStressTest.gltf', 'TheWave'], ['SimpleMorph.gltf', null],
];
const frames = 12;
let failures = 0;

async function load(file) {
  const bytes = readFileSync(`${dir}/${file}`);
  const loader = new GLTFLoader();
  if (file.endsWith('.gltf')) {
    // external buffers and images: resolve them from the folder ourselves (no fetch in Node)
    const json = JSON.parse(bytes.toString('utf8'));
    for (const b of json.buffers || [])
      if (b.uri && !b.uri.startsWith('data:'))
        b.uri = 'data:application/octet-stream;base64,' + readFileSync(`${dir}/${b.uri}`).toString('base64');
    // textures do not decode in Node anyway: geometry only
    delete json.images; delete json.textures; delete json.samplers;
    for (const m of json.materials || []) {
      for (const key of ['normalTexture', 'occlusionTexture', 'emissiveTexture']) delete m[key];
      if (m.pbrMetallicRoughness) { delete m.pbrMetallicRoughness.baseColorTexture; delete m.pbrMetallicRoughness.metallicRoughnessTexture; }
    }
    return await new Promise((res, rej) => loader.parse(JSON.stringify(json), '', res, rej));
  }
  const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return await new Promise((res, rej) => loader.parse(ab, '', res, rej));
}

for (const [file, clipName, tolerance = 1e-5] of cases) {
  const gltf = await load(file);
  const clip = clipName ? gltf.animations.find(a => a.name === clipName) : gltf.animations[0];
  const ours = execFileSync(helper, [`${dir}/${file}`, clipName ?? 'animation 0', String(frames)])
    .toString().trim().split('\n').map(l => l.split(' ').map(Number));
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(clip).play();
  const v = new THREE.Vector3();
  let worst = 0, extent = 0;
  for (const row of ours) {
    mixer.setTime(row[0]);
    gltf.scene.updateMatrixWorld(true);
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    gltf.scene.traverse(o => {
      if (!o.isMesh || o.geometry.index === null && o.geometry.attributes.position.count < 3) return;
      for (let i = 0; i < o.geometry.attributes.position.count; i++) {
        o.getVertexPosition(i, v);
        v.applyMatrix4(o.matrixWorld);
        const a = [v.x, v.y, v.z];
        for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], a[k]); hi[k] = Math.max(hi[k], a[k]); }
      }
    });
    for (let k = 0; k < 3; k++) {
      extent = Math.max(extent, hi[k] - lo[k]);
      worst = Math.max(worst, Math.abs(lo[k] - row[1 + k]), Math.abs(hi[k] - row[4 + k]));
    }
  }
  const ok = worst <= tolerance * extent;
  if (!ok) failures++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${file} ${clip.name || '#0'}: ${frames} frames, worst box difference ${worst.toExponential(2)} (extent ${extent.toFixed(3)})`);
}
process.exit(failures ? 1 : 0);
