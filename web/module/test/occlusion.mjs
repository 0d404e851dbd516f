// Depth shared between three.js and the crowd, measured by pixels. A row of people stands at z = 0; a
// red box stands in front of the left ones (drawn before the crowd: renderOrder -1) and a blue box
// behind the right ones (drawn after it: renderOrder 1). Three renders: the crowd alone, the boxes
// alone, both, against three alone before the crowd ever drew. Where the red box covers a person, the
// red box must show; where a person covers the blue box, the person must show; everywhere off the
// crowd, "both" and "boxes alone" must equal that reference to the byte (its state was handed back). window.runOcclusion()
// returns the counts; restoreState = false measures what skipping three's state reset breaks.
import * as THREE from 'three';
import { init, Asset, Crowd } from 'crowdbake';
import { CrowdObject } from 'crowdbake/three';

const W = 640, H = 360;
const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
renderer.setSize(W, H);
document.body.appendChild(renderer.domElement);
const gl = renderer.getContext();

const scene = new THREE.Scene();
scene.background = new THREE.Color(0x000000);
const camera = new THREE.PerspectiveCamera(40, W / H, 0.5, 200);
camera.position.set(0, 1.0, 9);
camera.lookAt(0, 1.0, 0);
const sun = new THREE.DirectionalLight(0xffffff, 2);
sun.position.set(2, 5, 4);
scene.add(sun, new THREE.AmbientLight(0xffffff, 0.6));

const red = new THREE.Mesh(new THREE.BoxGeometry(2.2, 1.2, 0.4), new THREE.MeshBasicMaterial({ color: 0xff0000 }));
red.position.set(-2.4, 0.9, 1.5); // in front of the left people, hiding their middle
red.renderOrder = -1;
const blue = new THREE.Mesh(new THREE.BoxGeometry(3.4, 3, 0.4), new THREE.MeshBasicMaterial({ color: 0x0000ff }));
blue.position.set(2.4, 1.2, -1.5); // behind the right people
blue.renderOrder = 1;
scene.add(red, blue);

await init();
const asset = await Asset.fromUrl(new URL('../assets/humanoid.crowd', import.meta.url));
const crowd = new Crowd(asset, { capacity: 8 });
crowd.count = 8;
const positions = new Float32Array(24), yaws = new Float32Array(8);
for (let i = 0; i < 8; i++) positions.set([-4.2 + i * 1.2, 0, 0], 3 * i);
crowd.setTransforms(positions, yaws);
const people = new CrowdObject(renderer, crowd, { shadows: false });
scene.add(people);

// Renders to the canvas, or into a render target when one is set (plain, or 4 samples: three's
// multisampled path, where edges blend and pixels can only be compared away from them).
let target = null;
function shot(showCrowd, showBoxes) {
  people.visible = showCrowd;
  red.visible = blue.visible = showBoxes;
  people.update(0, camera);
  renderer.setRenderTarget(target);
  renderer.render(scene, camera);
  const pixels = new Uint8Array(W * H * 4);
  if (target) renderer.readRenderTargetPixels(target, 0, 0, W, H, pixels);
  else gl.readPixels(0, 0, W, H, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
  renderer.setRenderTarget(null);
  return pixels;
}

const isRed = (p, i) => p[i] > 200 && p[i + 1] < 40 && p[i + 2] < 40;
const isBlue = (p, i) => p[i] < 40 && p[i + 1] < 40 && p[i + 2] > 200;
const lit = (p, i) => p[i] + p[i + 1] + p[i + 2] > 0;

const differ = (a, b, i) => a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2];
// three alone, before the crowd has ever drawn in this context, on the canvas and in a target
const references = { canvas: shot(false, true) };
for (const samples of [0, 4]) {
  target = new THREE.WebGLRenderTarget(W, H, { samples });
  references[samples] = shot(false, true);
  target.dispose();
}
target = null;

// samples: null draws to the canvas, else into a render target with that many samples
window.runOcclusion = (restoreState = true, samples = null) => {
  people.restoreState = restoreState;
  const reference = samples === null ? references.canvas : references[samples];
  if (samples !== null) target = new THREE.WebGLRenderTarget(W, H, { samples });
  const crowdOnly = shot(true, false), boxes = shot(false, true), both = shot(true, true);
  const counts = { crowdPixels: 0, redOverCrowd: 0, redHidesCrowd: 0, crowdOverBlue: 0, crowdHidesBlue: 0,
    offCrowd: 0, offCrowdDiffer: 0, boxesDiffer: 0 };
  for (let i = 0; i < W * H * 4; i += 4) {
    if (differ(boxes, reference, i)) counts.boxesDiffer++; // three's next frame after one with the crowd
    if (!lit(crowdOnly, i)) {
      counts.offCrowd++;
      if (differ(both, reference, i)) counts.offCrowdDiffer++;
      continue;
    }
    counts.crowdPixels++;
    if (isRed(reference, i)) {
      counts.redOverCrowd++;
      if (isRed(both, i)) counts.redHidesCrowd++;
    }
    if (isBlue(reference, i)) {
      counts.crowdOverBlue++;
      if (!isBlue(both, i) && both[i] === crowdOnly[i] && both[i + 1] === crowdOnly[i + 1]) counts.crowdHidesBlue++;
    }
  }
  people.restoreState = true;
  if (target) target.dispose();
  target = null;
  shot(false, true); // leaves three in a known state for the next run
  renderer.resetState();
  return counts;
};
window.occlusionReady = true;
