// A three.js scene of the page's own (ground, orbit controls, lit boxes, fog) with a crowd of 20,000
// walking among the boxes on crowdbake's simulation, made only from the package's public API.
// ?count=N changes the crowd; window.exampleStats says what was drawn once a frame has been.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { init, Asset, Crowd, Simulation } from 'crowdbake';
import { CrowdObject } from 'crowdbake/three';

const params = new URLSearchParams(location.search);
const count = Number(params.get('count') || 20000);
const hud = document.getElementById('hud');

const renderer = new THREE.WebGLRenderer({ antialias: false });
renderer.setPixelRatio(Math.min(devicePixelRatio, 2));
renderer.setSize(innerWidth, innerHeight);
document.body.appendChild(renderer.domElement);

const scene = new THREE.Scene();
scene.background = new THREE.Color(0x9fb0c8);
scene.fog = new THREE.FogExp2(0x9fb0c8, 0.006);
const camera = new THREE.PerspectiveCamera(55, innerWidth / innerHeight, 0.5, 1500);
camera.position.set(0, 28, 70);
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, 0, 0);
controls.update();

const sun = new THREE.DirectionalLight(0xfff2dd, 2.4);
sun.position.set(40, 90, 50);
scene.add(sun, new THREE.HemisphereLight(0xb8c8e8, 0x4a4030, 0.9));
const ground = new THREE.Mesh(new THREE.PlaneGeometry(420, 420), new THREE.MeshLambertMaterial({ color: 0x6f8a52 }));
ground.rotation.x = -Math.PI / 2;
scene.add(ground);

// Boxes on a ring and a few in the middle; the crowd steers around a circle on each.
const obstacles = [];
const boxMaterial = new THREE.MeshLambertMaterial({ color: 0xc8553d });
for (let i = 0; i < 14; i++) {
  const angle = (i / 14) * Math.PI * 2, radius = i % 2 ? 45 : 90, size = 6 + (i % 3) * 3;
  const box = new THREE.Mesh(new THREE.BoxGeometry(size, size * 1.5, size), boxMaterial);
  box.position.set(Math.cos(angle) * radius, size * 0.75, Math.sin(angle) * radius);
  scene.add(box);
  obstacles.push({ x: box.position.x, z: box.position.z, radius: size * 0.75 });
}

await init();
const asset = await Asset.fromUrl(new URL('../../assets/humanoid.crowd', import.meta.url));
const crowd = new Crowd(asset, { capacity: count, worldSize: 420 });
const simulation = new Simulation(crowd, { scenario: 'wander', obstacles, seed: 7, spawn: { shirts: 1 } });
simulation.spawn(count);
const people = new CrowdObject(renderer, crowd);
scene.add(people);

let framesDrawn = 0, last = performance.now();
function frame(now) {
  const dt = Math.min((now - last) / 1000, 0.1);
  last = now;
  simulation.step(dt);
  people.update(dt, camera);
  renderer.render(scene, camera);
  framesDrawn++;
  const stats = crowd.stats;
  window.exampleStats = { instances: stats.simulated, submitted: stats.submitted, framesDrawn };
  hud.textContent = `${stats.simulated.toLocaleString()} people, ${stats.submitted.toLocaleString()} drawn, ` +
    `${(dt * 1000).toFixed(0)} ms a frame`;
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

addEventListener('resize', () => {
  camera.aspect = innerWidth / innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(innerWidth, innerHeight);
});
