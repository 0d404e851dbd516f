// An exported .glb as other tools see it: the Khronos glTF-Validator must report 0 errors, and
// three.js's GLTFLoader must find one skinned mesh with the expected joints and clips.
// Usage: node check_export.mjs file.glb <joint count> <clip,names,...>
import { readFileSync } from 'fs';
import validator from 'gltf-validator';
globalThis.self = globalThis; // GLTFLoader expects a browser global
const THREE = await import('three');
const { GLTFLoader } = await import('three/examples/jsm/loaders/GLTFLoader.js');
const warn = console.warn, error = console.error;
console.warn = (...a) => { if (!String(a[0]).includes('texture')) warn(...a); }; // no image decoding in Node
console.error = (...a) => { if (!String(a[0]).includes('texture')) error(...a); };

const [file, joints, clips] = process.argv.slice(2);
const bytes = readFileSync(file);
let failures = 0;
const check = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${file}: ${what}`); failures += !ok; };

const report = await validator.validateBytes(new Uint8Array(bytes), { maxIssues: 100 });
const errors = report.issues.messages.filter(m => m.severity === 0);
check(report.issues.numErrors === 0, `validator: ${report.issues.numErrors} errors, ${report.issues.numWarnings} warnings`);
for (const e of errors.slice(0, 10)) console.log(`     ${e.code} at ${e.pointer}: ${e.message}`);

const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
const gltf = await new Promise((res, rej) => new GLTFLoader().parse(ab, '', res, rej));
const skinned = [];
gltf.scene.traverse(o => { if (o.isSkinnedMesh) skinned.push(o); });
check(skinned.length >= 1, `three.js: ${skinned.length} skinned meshes`);
const bones = skinned.length ? skinned[0].skeleton.bones.length : 0;
check(bones === +joints, `three.js: skeleton of ${bones} joints (expected ${joints})`);
const names = gltf.animations.map(a => a.name).join(',');
check(names === clips, `three.js: clips ${names} (expected ${clips})`);
const moving = gltf.animations.every(a => a.tracks.length > 0 && a.duration > 0);
check(moving, 'three.js: every clip has tracks and a duration');
process.exit(failures ? 1 : 0);
