// crowdbake inside a three.js scene: a CrowdObject is an Object3D that draws its crowd with three's
// camera and WebGL2 context during three's own render, in the opaque pass, so that three's meshes and
// the crowd share the depth buffer and hide each other. The crowd lives in the object's local space
// (move the object, the crowd moves). It takes the scene's first DirectionalLight, its Hemisphere or
// Ambient light and its fog (FogExp2 exactly; linear Fog approximated by the exp2 fog that reaches the
// same density at its far distance), and three's ACES tone mapping. After drawing it hands three its
// state back with renderer.resetState() and re-binds three's render target and viewport (the test
// page web/module/test/occlusion.html measures that three draws the same pixels after it).
import * as THREE from 'three';
import { Renderer } from './crowdbake.mjs';

const scratch = new THREE.Matrix4();
const light = new THREE.Vector3();
const lightTarget = new THREE.Vector3();
const eye = new THREE.Vector3();
const ahead = new THREE.Vector3();
const drawingBuffer = new THREE.Vector2();
const viewport = new THREE.Vector4();

function linear(c, intensity) {
  return [c.r * intensity, c.g * intensity, c.b * intensity];
}

/** The crowd's light from the scene's own lights and fog; the defaults where the scene has none. */
function sceneLighting(scene, sun, ambient) {
  const lit = {};
  if (sun) {
    light.setFromMatrixPosition(sun.matrixWorld).sub(lightTarget.setFromMatrixPosition(sun.target.matrixWorld));
    if (light.lengthSq() > 0) lit.sunDirection = light.normalize().toArray();
    lit.sunColor = linear(sun.color, sun.intensity);
  }
  if (ambient && ambient.isHemisphereLight) {
    lit.skyColor = linear(ambient.color, ambient.intensity);
    lit.groundColor = linear(ambient.groundColor, ambient.intensity);
  } else if (ambient) {
    lit.skyColor = lit.groundColor = linear(ambient.color, ambient.intensity);
  }
  if (scene.fog) {
    lit.fogColor = scene.fog.color.toArray();
    // linear fog is fully opaque at `far`; exp2 fog reaches 95 % where (density * d)^2 = 3
    lit.fogDensity = scene.fog.isFogExp2 ? scene.fog.density : Math.sqrt(3) / Math.max(scene.fog.far, 1e-3);
  }
  return lit;
}

// The framebuffer three draws a render target through: the multisampled one when it has samples, the
// face's for a cube target.
function targetFramebuffer(renderer, target) {
  const properties = renderer.properties.get(target);
  const framebuffer = properties.__webglMultisampledFramebuffer || properties.__webglFramebuffer;
  return Array.isArray(framebuffer) ? framebuffer[renderer.getActiveCubeFace()] : framebuffer;
}

export class CrowdObject extends THREE.Mesh {
  /**
   * renderer: the THREE.WebGLRenderer that draws the scene; crowd: a crowdbake Crowd. options: the
   * crowdbake Renderer's options, plus shadows (default true: the crowd's own shadows on itself),
   * shadowRadius (metres around the camera's ground point the shadow map covers, default 60) and
   * light / ambient (three lights to use instead of the scene's).
   */
  constructor(renderer, crowd, options = {}) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.Float32BufferAttribute(new Float32Array(9), 3));
    geometry.setDrawRange(0, 0); // three calls onBeforeRender, then draws nothing of its own
    super(geometry, new THREE.MeshBasicMaterial({ colorWrite: false, depthWrite: false }));
    const { shadows = true, shadowRadius = 60, light: sun = null, ambient = null, ...rendererOptions } = options;
    this.type = 'CrowdObject';
    this.frustumCulled = false; // the crowd culls itself, per chunk and per instance
    this.crowd = crowd;
    this.three = renderer;
    this.crowdRenderer = new Renderer(renderer.getContext(), crowd, rendererOptions);
    this.shadows = shadows;
    this.shadowRadius = shadowRadius;
    this.light = sun;
    this.ambient = ambient;
    this.restoreState = true;
    this.view = new Float32Array(16);
    this.projection = new Float32Array(16);
  }

  /** Advances the crowd by dt seconds and culls it for `camera` (a THREE.Camera), as seed 000 does. */
  update(dt, camera) {
    this.updateWorldMatrix(true, false);
    camera.updateMatrixWorld();
    scratch.multiplyMatrices(camera.matrixWorldInverse, this.matrixWorld);
    this.view.set(scratch.elements);
    this.projection.set(camera.projectionMatrix.elements);
    const height = this.three.getDrawingBufferSize(drawingBuffer).y;
    return this.crowd.update(dt, { view: this.view, projection: this.projection, viewportHeight: height,
      renderer: this.crowdRenderer });
  }

  #lights(scene) {
    const usable = (l) => l && l.parent; // a light removed from its scene is forgotten
    if (!usable(this.light) || !usable(this.ambient)) {
      scene.traverseVisible((o) => {
        if (!usable(this.light) && o.isDirectionalLight) this.foundLight = o;
        if (!usable(this.ambient) && (o.isHemisphereLight || o.isAmbientLight)) this.foundAmbient = o;
      });
    }
    return [usable(this.light) ? this.light : this.foundLight, usable(this.ambient) ? this.ambient : this.foundAmbient];
  }

  onBeforeRender(renderer, scene, camera) {
    if (!this.crowd.framePtr || !this.crowdRenderer.ptr) return;
    scratch.multiplyMatrices(camera.matrixWorldInverse, this.matrixWorld);
    const [sun, ambient] = this.#lights(scene);
    const target = renderer.getRenderTarget();
    const framebuffer = target ? targetFramebuffer(renderer, target) : null;
    renderer.getCurrentViewport(viewport);
    this.crowdRenderer.setTarget(framebuffer, viewport.x, viewport.y, viewport.z, viewport.w);
    const toneMapped = renderer.toneMapping === THREE.ACESFilmicToneMapping;
    this.crowdRenderer.render({
      ...sceneLighting(scene, sun, ambient),
      view: scratch.elements, projection: camera.projectionMatrix.elements,
      shadows: this.shadows, shadowRadius: this.shadowRadius, shadowCentre: this.#groundPoint(camera),
      output: toneMapped ? 1 : 0, exposure: toneMapped ? renderer.toneMappingExposure : 1,
    });
    if (!this.restoreState) return;
    const face = renderer.getActiveCubeFace(), level = renderer.getActiveMipmapLevel();
    renderer.resetState();
    renderer.setRenderTarget(target, face, level); // reset binds the canvas and its whole viewport
  }

  // The shadow map follows the camera: centred where the view meets the ground, in local space.
  #groundPoint(camera) {
    eye.setFromMatrixPosition(camera.matrixWorld);
    ahead.set(0, 0, -1).transformDirection(camera.matrixWorld);
    const local = this.worldToLocal(eye.addScaledVector(ahead, this.shadowRadius * 0.5));
    return [local.x, 0, local.z];
  }

  get stats() { return { ...this.crowd.stats, render: this.crowdRenderer.stats }; }

  /** The renderer's GPU objects and this object's geometry; the crowd stays the caller's. */
  dispose() {
    this.crowdRenderer.destroy();
    this.geometry.dispose();
    this.material.dispose();
  }
}
