// Types of crowdbake.mjs: the C API of crowdbake (include/crowdbake/*.h) made idiomatic for JavaScript.
// The C headers are the reference for what each option means; names here are their camelCase.

/** Resolves once the wasm is fetched and compiled; later calls return the same promise. */
export function init(options?: { wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module }): Promise<void>;

/** A refusal of the C library. `code` names its crowd_result ("CROWD_ERROR_ARGUMENT"); the message is the C message. */
export class CrowdbakeError extends Error {
  readonly code: string;
}

/** Bytes the wasm heap has handed out and not had back. */
export function heapInUse(): number;

export type ClipRole = 'unknown' | 'locomotion' | 'idle' | 'action' | 'pose' | 'flight';

export interface ClipInfo {
  name: string;
  role: ClipRole;
  frames: number;
  duration: number; // seconds of one cycle
  stride: number;   // metres per cycle at authored speed; 0 in place
  loop: boolean;
  /** The clip's markers (footsteps the bake found, moments named at bake time), in time order. */
  markers: { index: number; name: string; time: number; phase: number }[];
}

export interface AssetInfo {
  vertexCount: number;
  frameCount: number;
  hasBones: boolean;
  hasAlbedo: boolean;
  imposters: boolean;
  source: string;
  unitScale: number;
  clips: ClipInfo[];
  sockets: string[];
  bones: string[];
  regions: string[];
  lods: { triangles: number; screenCoverage: number }[];
  bounds: { min: [number, number, number]; max: [number, number, number]; sphereCenterY: number; sphereRadius: number };
  /** What the bake decided (null for files baked before notes existed). */
  notes: null | {
    forward: string; forwardDecision: 'default' | 'detected' | 'given'; up: string; height: number;
    /** 'detected': the bake read the file in another unit than metres (crowdbake/bake.h, UNITS). */
    scaleDecision: 'default' | 'detected' | 'given';
    groundOffset: number; hover: number; boneMode: 'none' | 'exact' | 'approximate' | 'unavailable'; boneError: number;
  };
}

/** A baked character: the bytes of a .crowd file, copied into the wasm heap. */
export class Asset {
  static fromUrl(url: string | URL, init?: RequestInit): Promise<Asset>;
  constructor(bytes: ArrayBuffer | ArrayBufferView);
  readonly info: AssetInfo;
  readonly clips: ClipInfo[];
  readonly sockets: string[];
  readonly lods: AssetInfo['lods'];
  readonly bounds: AssetInfo['bounds'];
  /** The clip's index as crowd_asset_match_clip matches names ("Armature|Walk" is "walk"); -1 if none. */
  findClip(name: string): number;
  /** A name or an index, as an index; throws when there is no such clip. */
  clipIndex(clip: string | number): number;
  /** Throws while a crowd or renderer of this asset is alive. */
  destroy(): void;
}

export type Clip = string | number;

/** crowd_desc. Absent or zero fields take the C defaults; crowd.settings shows them resolved. */
export interface CrowdOptions {
  capacity?: number;
  worldSize?: number;
  chunkSize?: number;
  lodPolicy?: 'distance' | 'coverage' | 'screen-coverage' | 0 | 1;
  lodPivot?: 'centre' | 'center' | 'near-edge' | 0 | 1;
  lodDistances?: number[];
  lodBias?: number;
  screenCoverage?: number[];
  minCoverage?: number;
  hysteresis?: number;
  vertexBudget?: number;
  shadowMaxLod?: number;
  crossFadeMaxLod?: number;
  farPool?: number;
  shadows?: number;
  threads?: number;
  imposters?: number;
  imposterBand?: number;
  /** 1: each update reports the clip markers instances cross (Crowd.events); default off. */
  markerEvents?: number;
  /** Room for events per update; 0 = capacity / 4 + 256. */
  eventCapacity?: number;
}

export interface CrowdSettings extends Required<Omit<CrowdOptions, 'lodPolicy' | 'lodPivot'>> {
  lodPolicy: number;
  lodPivot: number;
}

export type CrowdEvent =
  | { kind: 'finished'; instance: number; clip: number; time: number; holding: boolean }
  | { kind: 'marker'; instance: number; clip: number; time: number; marker: string };

/** Column-major 4x4 matrices (three.js's .elements, gl-matrix's mat4). */
export interface Camera {
  view: ArrayLike<number>;
  projection: ArrayLike<number>;
  /** Pixels; default 720. Used for screen coverage. */
  viewportHeight?: number;
  /** The renderer that will draw this update (default: the crowd's first). */
  renderer?: Renderer;
}

/** crowd_stats of the last update, plus the shader time, the draw count and the simulation's figures. */
export interface CrowdStats {
  simulated: number;
  submitted: number;
  rasterised: number;
  draws: number;
  shadowDraws: number;
  triangles: number;
  shadowTriangles: number;
  bytesUploaded: number;
  lodHistogram: number[];
  chunksVisible: number;
  chunksTotal: number;
  demoted: number;
  budgetSatisfied: boolean;
  fadesActive: number;
  extrapolating: boolean;
  msBin: number;
  msLod: number;
  msGather: number;
  msOutput: number;
  events: number;
  eventsDropped: number;
  oneShots: number;
  msEvents: number;
  time: number;
  drawCount: number;
  simulation?: SimulationStats;
}

/** A crowd_record as stored (crowdbake/crowd.h). */
export interface CrowdRecord {
  position: [number, number, number];
  yaw: number;
  offsetA: number;
  rateA: number;
  scale: number;
  refTime: number;
  offsetB: number;
  rateB: number;
  fadeStart: number;
  fadeRate: number;
  clips: number;
  velocity: number;
  tint: number;
  variant: number;
}

export interface Variant {
  tint?: [number, number, number];
  regionChoice?: number[];
  accessories?: number;
}

export class Crowd {
  constructor(asset: Asset, options?: CrowdOptions);
  readonly asset: Asset;
  readonly settings: CrowdSettings;
  /** crowd_configure: LOD and culling options (asset, capacity, worldSize and chunkSize are fixed). */
  configure(options: CrowdOptions): void;
  /** Live instances; setting it adds or removes from the end. */
  count: number;
  readonly time: number;
  strideMatching: boolean;
  readonly stats: CrowdStats;
  readonly simulation: Simulation | null;
  readonly renderers: Set<Renderer>;

  setTransform(index: number, x: number, y: number, z: number, yaw?: number): void;
  setVelocity(index: number, vx: number, vz: number): void;
  setScale(index: number, scale: number): void;
  setPhase(index: number, phase: number): void;
  setSpeed(index: number, metresPerSecond: number): void;
  setVariant(index: number, variant: Variant): void;
  play(index: number, clip: Clip, options?: { rate?: number; fade?: number; once?: boolean }): void;
  remove(index: number): void;
  get(index: number): CrowdRecord;

  /** Instances first .. first + yaws.length - 1: positions holds x, y, z per instance. */
  setTransforms(positions: Float32Array, yaws: Float32Array, first?: number): void;
  playMany(clips: Uint32Array, options?: { rates?: Float32Array; fade?: number; once?: boolean; first?: number }): void;
  setSpeeds(speeds: Float32Array, first?: number): void;
  setScales(scales: Float32Array, first?: number): void;
  setPhases(phases: Float32Array, first?: number): void;
  /** vx, vz per instance. */
  setVelocities(velocities: Float32Array, first?: number): void;
  /** Every live instance at the crowd's time: x, y, z and yaw per instance. */
  getTransforms(): { positions: Float32Array; yaws: Float32Array };
  /**
   * A socket's world transform per instance at the crowd's time, as attachments are drawn: 12 numbers
   * each (3x4 row-major, column 3 the position). Every live instance, or the given ones. Needs bones.
   */
  getSocketTransforms(socket: string | number, indices?: Uint32Array): Float32Array;
  /** What happened during the last update: one-shots finished, markers crossed (with markerEvents: 1). */
  readonly events: CrowdEvent[];

  /** Advances time and culls for the camera. Returns the frame's address in the wasm heap (for Renderer). */
  update(dt: number, camera: Camera): number;
  /** Gives every byte back; its simulation and renderers go with it. */
  destroy(): void;
}

export const Scenario: { readonly wander: 0; readonly stampede: 1; readonly parade: 2; readonly mill: 3; readonly gather: 4 };
export type ScenarioName = keyof typeof Scenario;

/** crowd_spawn_options: the agents' looks and clips. */
export interface SpawnOptions {
  scaleMin?: number;
  scaleMax?: number;
  shirts?: number;
  saturationMin?: number;
  saturationMax?: number;
  valueMin?: number;
  valueMax?: number;
  accessories?: number;
  accessoryOdds?: number[];
  idleClip?: string;
  cheerClip?: string;
}

/** crowd_sim_desc. */
export interface SimulationOptions {
  scenario?: ScenarioName;
  obstacles?: { x: number; z: number; radius: number }[];
  separation?: number;
  separationLimit?: number;
  separationRadius?: number;
  seed?: number;
  lodDistance?: number;
  lodInterval?: number;
  offscreenInterval?: number;
  spawn?: SpawnOptions;
}

export interface SimulationStats {
  msStep: number;
  msSeparation: number;
  rewritten: number;
  asleep: number;
  separated: number;
  separationActive: boolean;
}

/** crowdbake's own steering of a crowd (one per crowd). */
export class Simulation {
  constructor(crowd: Crowd, options?: SimulationOptions);
  /** Sets the crowd's count and places every agent anew. */
  spawn(count: number): void;
  scenario: ScenarioName;
  separation: 'auto' | boolean;
  step(dt: number): void;
  readonly stats: SimulationStats;
  destroy(): void;
}

/** crowd_gl_desc. */
export interface RendererOptions {
  mode?: 'vat' | 'bones';
  capacity?: number;
  lodBand?: number;
  shadowMapSize?: number;
  tint?: 'default' | 'region' | 'wash';
  tintRegion?: number;
  upload?: 'default' | 'orphan' | 'ring' | 'in-place';
  debug?: boolean;
  timers?: boolean;
  /**
   * 1: the colour pass also writes motion vectors to fragment output 1 (crowd_gl_velocity: bind a
   * framebuffer with an RG16F attachment there and drawBuffers; needs EXT_color_buffer_float).
   */
  velocity?: 0 | 1;
  /**
   * Which renderer draws (default 'auto'). WebGL2 draws in this version; 'auto' and 'webgpu' ask the
   * browser for a WebGPU device, and Renderer.rendererStatus says whether it came and, when not, why.
   */
  renderer?: 'auto' | 'webgpu' | 'webgl2';
}

/** crowd_gl_scene, with linear colours; absent fields take defaultLighting's. */
export interface SceneOptions {
  view: ArrayLike<number>;
  projection: ArrayLike<number>;
  sunDirection?: number[];
  sunColor?: number[];
  skyColor?: number[];
  groundColor?: number[];
  fogColor?: number[];
  fogDensity?: number;
  shadows?: boolean;
  /** Where the shadow map is centred and how far it reaches, metres (default origin, 60). */
  shadowCentre?: number[];
  shadowRadius?: number;
  flatColor?: boolean;
  /** 0: gamma 2.2 (default); 1: exposure, ACES filmic, sRGB. */
  output?: 0 | 1;
  exposure?: number;
  farShadow?: 0 | 1;
  /** Motion vectors' "a frame earlier": 0 the renderer's last draw (default), 1 the two fields below. */
  previous?: 0 | 1;
  previousViewProjection?: ArrayLike<number>;
  previousTime?: number;
  /** 0: pixels (default); 1: NDC. */
  velocityUnits?: 0 | 1;
}

export const defaultLighting: Readonly<Required<Pick<SceneOptions,
  'sunDirection' | 'sunColor' | 'skyColor' | 'groundColor' | 'fogColor' | 'fogDensity'>>>;

export interface RendererStats {
  draws: number;
  shadowDraws: number;
  triangles: number;
  shadowTriangles: number;
  bytesUploaded: number;
  capacity: number;
  timers: boolean;
  gpuShadowMs: number;
  gpuColorMs: number;
}

/** Draws one crowd into the page's WebGL2 context (GL state afterwards: crowdbake/gl.h). */
export class Renderer {
  constructor(gl: WebGL2RenderingContext, crowd: Crowd, options?: RendererOptions);
  readonly crowd: Crowd;
  mode: 'vat' | 'bones';
  /** Where the shadow pass returns to: a framebuffer (null: the canvas) and its viewport. */
  setTarget(framebuffer: WebGLFramebuffer | null, x: number, y: number, width: number, height: number): void;
  /** Uploads the crowd's last update and draws it into the bound framebuffer. */
  render(scene: SceneOptions): void;
  readonly stats: RendererStats;
  /** What draws: 'webgl2' in this version. */
  readonly backend: 'webgl2';
  /** The renderer option's outcome: "renderer: WebGL2 (WebGPU unavailable: no adapter)" and the like. */
  readonly rendererStatus: string;
  makeCurrent(): void;
  destroy(): void;
}

/** crowd_bake_desc, as the page's bake takes it (crowdbake/bake.h says what each field does). */
export interface BakeOptions {
  fps?: number;
  frames?: number;
  /** Clips to bake, in this order (names as crowd_match_clip_name matches them). */
  clips?: string[];
  lods?: number;
  lodRatios?: number[];
  bones?: boolean;
  tangents?: boolean;
  compact?: boolean;
  fp16?: boolean;
  scale?: number;
  height?: number;
  texWidth?: number;
  forward?: 'auto' | '+z' | '-z' | '+x' | '-x';
  up?: 'y' | 'z';
  /** 'auto', 'none', or an offset in metres. */
  ground?: 'auto' | 'none' | number;
  clipRoles?: Record<string, Exclude<ClipRole, 'unknown'>>;
  /** Refuse bakes predicted larger (default 256 MB). */
  maxBytes?: number;
  /** Cancels the bake (the promise rejects with an AbortError). */
  signal?: AbortSignal;
}

export interface BakeSummary {
  asset: AssetInfo;
  bytes: number;
  predictedBytes: number;
  vertices: number;
  triangles: number;
  bones: number;
  frames: number;
  lodTriangles: number[];
  /** crowd_bake's own time, milliseconds (the read of the file not included). */
  ms: number;
}

export type BakeInput = ArrayBuffer | ArrayBufferView | Blob | { files: ArrayLike<File> } |
  { critter: string; seed?: number } | { humanoid: true };

/** A procedural critter kind: bake({ critter: name, seed }) captures one. */
export interface CritterKind {
  name: string;
  /** the body plan it is built on: 'blob' (a biped), 'quad' (a quadruped) or 'tube' (a crawler) */
  plan: string;
  /** one line: what sets this kind apart */
  summary: string;
}

/** The critter kinds the baker knows, asked of it in its worker once. */
export function critterKinds(): Promise<CritterKind[]>;

/**
 * Bakes in a Web Worker with the same C baker as crowd-bake. Rejects with a CrowdbakeError carrying
 * the baker's message (a refused file, the size cap), or an AbortError.
 */
export function bake(input: BakeInput, options?: BakeOptions,
  onProgress?: (fraction: number, stage: string) => void): Promise<{ bytes: Uint8Array; summary: BakeSummary; warnings: string[] }>;

/** Fetches and compiles the baker's wasm ahead of the first bake(). */
export function prepareBake(): Promise<void>;
