import * as THREE from 'three';
import { Crowd, CrowdStats, Renderer, RendererOptions, RendererStats } from './crowdbake.js';

export interface CrowdObjectOptions extends RendererOptions {
  /** The crowd's shadows on itself (default true). */
  shadows?: boolean;
  /** Metres around the camera's ground point that the shadow map covers (default 60). */
  shadowRadius?: number;
  /** Lights to use instead of the scene's first DirectionalLight and Hemisphere / Ambient light. */
  light?: THREE.DirectionalLight | null;
  ambient?: THREE.HemisphereLight | THREE.AmbientLight | null;
}

/** A crowd as an object of a three.js scene, drawn in three's opaque pass with three's camera and context. */
export class CrowdObject extends THREE.Mesh {
  constructor(renderer: THREE.WebGLRenderer, crowd: Crowd, options?: CrowdObjectOptions);
  readonly crowd: Crowd;
  readonly crowdRenderer: Renderer;
  shadows: boolean;
  shadowRadius: number;
  /** Hand three its state back after drawing (default true); off only to measure what that costs. */
  restoreState: boolean;
  /** Advances the crowd and culls it for the camera. */
  update(dt: number, camera: THREE.Camera): number;
  readonly stats: CrowdStats & { render: RendererStats };
  dispose(): void;
}
