// crowdbake for JavaScript: the C library's runtime, simulation and WebGL2 renderer, compiled to wasm,
// with the C API made idiomatic and typed (crowdbake.d.ts is the manual). One wasm instance per page
// (or worker, or Node process) holds every asset, crowd and renderer; each object gives its bytes back
// with destroy(). Struct offsets come from the wasm itself (cbw_layouts_json), never from here.
import createCrowdbakeWasm from './crowdbake-wasm.mjs';

let wasm = null; // the Emscripten module once init() has resolved
let layouts = null;
let starting = null;

/** A refusal of the C library: `code` is its crowd_result name ("CROWD_ERROR_ARGUMENT"). */
export class CrowdbakeError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'CrowdbakeError';
    this.code = code;
  }
}

async function wasmBytes(source) {
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  const url = new URL(source ?? './crowdbake-wasm.wasm', import.meta.url);
  if (url.protocol === 'file:') { // Node: fetch() does not read files
    const fsName = 'node:fs/promises';
    const fs = await import(/* @vite-ignore */ /* webpackIgnore: true */ fsName);
    return fs.readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`crowdbake: ${url}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

/**
 * Fetches and compiles the wasm once; later calls return the same promise. `options.wasm` is the
 * wasm's URL (default: beside this file), its bytes, or a compiled WebAssembly.Module.
 */
export function init(options = {}) {
  if (!starting) {
    starting = (async () => {
      const compiled = options.wasm instanceof WebAssembly.Module
        ? options.wasm : await WebAssembly.compile(await wasmBytes(options.wasm));
      wasm = await createCrowdbakeWasm({
        instantiateWasm(imports, receive) {
          WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance));
          return {};
        },
      });
      layouts = JSON.parse(wasm.UTF8ToString(wasm._cbw_layouts_json()));
    })();
    starting.catch(() => { starting = null; });
  }
  return starting;
}

function ready() {
  if (!wasm) throw new Error('crowdbake: await init() first');
  return wasm;
}

// ---- memory: structs at the C compiler's offsets ------------------------------------------------

const snake = (name) => name.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

function alloc(bytes) {
  const ptr = ready()._malloc(Math.max(bytes, 1));
  if (!ptr) throw new CrowdbakeError('CROWD_ERROR_OUT_OF_MEMORY', `crowdbake: the wasm heap has no ${bytes} bytes left`);
  wasm.HEAPU8.fill(0, ptr, ptr + bytes);
  return ptr;
}

function allocStruct(name) {
  return alloc(layouts[name].size);
}

function writeValue(address, type, value) {
  switch (type) {
    case 'f32': wasm.HEAPF32[address >> 2] = value; break;
    case 'f64': wasm.HEAPF64[address >> 3] = value; break;
    case 'i32': wasm.HEAP32[address >> 2] = value; break;
    case 'u32': case 'ptr': wasm.HEAPU32[address >> 2] = value >>> 0; break;
    case 'u8': case 'bool': wasm.HEAPU8[address] = Number(value); break;
    default: throw new TypeError(`crowdbake: cannot write a ${type}`);
  }
}

function readValue(address, type) {
  switch (type) {
    case 'f32': return wasm.HEAPF32[address >> 2];
    case 'f64': return wasm.HEAPF64[address >> 3];
    case 'i32': return wasm.HEAP32[address >> 2];
    case 'u32': case 'ptr': return wasm.HEAPU32[address >> 2];
    case 'u8': return wasm.HEAPU8[address];
    case 'bool': return wasm.HEAPU8[address] !== 0;
    case 'u64': return wasm.HEAPU32[address >> 2] + 4294967296 * wasm.HEAPU32[(address >> 2) + 1];
    default: throw new TypeError(`crowdbake: cannot read a ${type}`);
  }
}

const sizeOf = { f32: 4, f64: 8, i32: 4, u32: 4, ptr: 4, u8: 1, bool: 1, u64: 8 };

function fieldOf(struct, name) {
  const field = layouts[struct].fields.find((f) => f[0] === name);
  if (!field) throw new TypeError(`crowdbake: ${struct} has no field ${name}`);
  return field;
}

/** Writes `values` (C field names, or their camelCase) into the struct at `ptr`; unknown names throw. */
function writeStruct(ptr, struct, values, what) {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const field = layouts[struct].fields.find((f) => f[0] === snake(key));
    if (!field || field[2] === 'ptr' || field[2] === 'struct')
      throw new TypeError(`crowdbake: ${what} has no option "${key}"`);
    const [, offset, type, count] = field;
    if (count === 1) { writeValue(ptr + offset, type, value); continue; }
    if (!Array.isArray(value) && !ArrayBuffer.isView(value))
      throw new TypeError(`crowdbake: ${what}.${key} must be an array of at most ${count} numbers`);
    if (value.length > count) throw new TypeError(`crowdbake: ${what}.${key} holds at most ${count} numbers`);
    for (let i = 0; i < value.length; i++) writeValue(ptr + offset + i * sizeOf[type], type, value[i]);
  }
}

/** The struct at `ptr` as a plain object with camelCase keys. */
function readStruct(ptr, struct) {
  const out = {};
  for (const [name, offset, type, count] of layouts[struct].fields) {
    if (type === 'struct' || type === 'ptr') continue;
    if (type === 'u8' && count > 16) continue; // text (crowd_error.message)
    out[camel(name)] = count === 1 ? readValue(ptr + offset, type)
      : Array.from({ length: count }, (_, i) => readValue(ptr + offset + i * sizeOf[type], type));
  }
  return out;
}

let viewFields = null;
function viewOffsets() {
  if (!viewFields) viewFields = ['view', 'projection', 'viewport_height'].map((name) => fieldOf('crowd_view', name)[1]);
  return viewFields;
}

function writeFloats(ptr, values) {
  wasm.HEAPF32.set(values, ptr >> 2);
}

// Scratch buffers for bulk calls, kept and grown: slot 0..3 may be in use at once.
const scratch = [{ ptr: 0, bytes: 0 }, { ptr: 0, bytes: 0 }, { ptr: 0, bytes: 0 }, { ptr: 0, bytes: 0 }];
function scratchCopy(slot, typed) {
  const s = scratch[slot];
  if (s.bytes < typed.byteLength) {
    if (s.ptr) wasm._free(s.ptr);
    s.bytes = Math.max(typed.byteLength, 2 * s.bytes, 64);
    s.ptr = alloc(s.bytes);
  }
  wasm.HEAPU8.set(new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength), s.ptr);
  return s.ptr;
}

function withString(text, use) {
  const bytes = wasm.lengthBytesUTF8(text) + 1;
  const ptr = alloc(bytes);
  try {
    wasm.stringToUTF8(text, ptr, bytes);
    return use(ptr);
  } finally {
    wasm._free(ptr);
  }
}

const resultName = (code) => wasm.UTF8ToString(wasm._crowd_result_name(code));

function errorFrom(ptr) {
  const code = readValue(ptr + fieldOf('crowd_error', 'code')[1], 'i32');
  return new CrowdbakeError(resultName(code), wasm.UTF8ToString(ptr + fieldOf('crowd_error', 'message')[1]));
}

/** Calls `call(errorPtr)` and throws the crowd_error it filled when the result is not CROWD_OK. */
function withError(call) {
  const error = allocStruct('crowd_error');
  try {
    const result = call(error);
    if (result !== 0) throw errorFrom(error);
  } finally {
    wasm._free(error);
  }
}

function checkCrowd(result, crowdPtr, where) {
  if (result === 0) return;
  const last = wasm._crowd_last_error(crowdPtr);
  const message = last ? wasm.UTF8ToString(last + fieldOf('crowd_error', 'message')[1]) : '';
  throw new CrowdbakeError(resultName(result), `${where}: ${message || resultName(result)}`);
}

function live(object, what) {
  if (!object.ptr) throw new Error(`crowdbake: this ${what} has been destroyed`);
  return object.ptr;
}

function matrix(value, what) {
  if (!value || value.length !== 16) throw new TypeError(`crowdbake: ${what} must be 16 numbers, column-major`);
  return value;
}

// ---- assets ---------------------------------------------------------------------------------------

/** A baked character (.crowd bytes). The bytes are copied into the wasm heap and kept there. */
export class Asset {
  /** Fetches a .crowd file and loads it. */
  static async fromUrl(url, init) {
    const response = await fetch(url, init);
    if (!response.ok) throw new Error(`crowdbake: ${url}: HTTP ${response.status}`);
    return new Asset(await response.arrayBuffer());
  }

  constructor(bytes) {
    ready();
    const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes)
      : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.dataPtr = alloc(view.byteLength + 16); // the loader reads the image in place: 16-byte aligned
    const data = (this.dataPtr + 15) & ~15;
    wasm.HEAPU8.set(view, data);
    this.ptr = allocStruct('crowd_asset');
    this.users = new Set();
    try {
      withError((error) => wasm._crowd_asset_load_memory(this.ptr, data, view.byteLength, error));
    } catch (error) {
      wasm._free(this.ptr);
      wasm._free(this.dataPtr);
      this.ptr = this.dataPtr = 0;
      throw error;
    }
    this.info = JSON.parse(wasm.UTF8ToString(wasm._cbw_asset_json(this.ptr)));
  }

  get clips() { return this.info.clips; }
  get sockets() { return this.info.sockets; }
  get lods() { return this.info.lods; }
  get bounds() { return this.info.bounds; }

  /** A clip's index by name as crowd_asset_match_clip matches it ("Armature|Walk" is "walk"); -1 if none. */
  findClip(name) {
    const index = alloc(4);
    try {
      const found = withString(String(name), (text) => wasm._crowd_asset_match_clip(live(this, 'asset'), text, index));
      return found ? wasm.HEAPU32[index >> 2] : -1;
    } finally {
      wasm._free(index);
    }
  }

  /** A clip given by name or index, as an index; throws when the asset has no such clip. */
  clipIndex(clip) {
    const index = typeof clip === 'number' ? clip : this.findClip(clip);
    if (!(index >= 0 && index < this.info.clips.length))
      throw new CrowdbakeError('CROWD_ERROR_ARGUMENT', `crowdbake: the asset has no clip ${JSON.stringify(clip)} ` +
        `(it has ${this.info.clips.map((c) => c.name).join(', ')})`);
    return index;
  }

  destroy() {
    if (!this.ptr) return;
    if (this.users.size) throw new Error('crowdbake: destroy the crowds and renderers of this asset first');
    wasm._crowd_asset_free(this.ptr);
    wasm._free(this.ptr);
    wasm._free(this.dataPtr);
    this.ptr = this.dataPtr = 0;
  }
}

// ---- crowds ---------------------------------------------------------------------------------------

const lodPolicies = { distance: 0, coverage: 1, 'screen-coverage': 1 };
const lodPivots = { centre: 0, center: 0, 'near-edge': 1 };
export const Scenario = { wander: 0, stampede: 1, parade: 2, mill: 3, gather: 4 };

function crowdDesc(options) {
  const { lodPolicy, lodPivot, ...rest } = options;
  const values = { ...rest };
  if (lodPolicy !== undefined) values.lodPolicy = enumValue(lodPolicies, lodPolicy, 'lodPolicy');
  if (lodPivot !== undefined) values.lodPivot = enumValue(lodPivots, lodPivot, 'lodPivot');
  return values;
}

function enumValue(table, value, what) {
  if (typeof value === 'number') return value;
  if (!(value in table)) throw new TypeError(`crowdbake: ${what} is one of ${Object.keys(table).join(', ')}`);
  return table[value];
}

function typed(values, Type, count, what) {
  if (!(values instanceof Type)) throw new TypeError(`crowdbake: ${what} must be a ${Type.name}`);
  if (values.length !== count) throw new TypeError(`crowdbake: ${what} holds ${values.length} values, expected ${count}`);
  return values;
}

/**
 * Up to `capacity` instances of one asset: records, culling, levels of detail, upload ranges.
 * Options are crowd_desc's fields in camelCase, zero or absent for the C defaults.
 */
export class Crowd {
  constructor(asset, options = {}) {
    ready();
    const desc = allocStruct('crowd_desc');
    const out = alloc(4);
    try {
      writeStruct(desc, 'crowd_desc', crowdDesc(options), 'Crowd options');
      writeValue(desc + fieldOf('crowd_desc', 'asset')[1], 'ptr', live(asset, 'asset'));
      withError((error) => wasm._crowd_create(desc, out, error));
      this.ptr = wasm.HEAPU32[out >> 2];
    } finally {
      wasm._free(desc);
      wasm._free(out);
    }
    this.asset = asset;
    asset.users.add(this);
    this.viewPtr = allocStruct('crowd_view');
    this.matricesPtr = alloc(128); // view and projection for crowd_gl_view, kept: no allocation per frame
    this.failedPtr = alloc(4);
    this.framePtr = 0;
    this.simulation = null;
    this.renderers = new Set();
  }

  /** The desc with every default filled in (crowd_settings), camelCase. */
  get settings() { return readStruct(wasm._crowd_settings(live(this, 'crowd')), 'crowd_desc'); }
  /** Changes LOD and culling settings in place (crowd_configure; capacity, worldSize, chunkSize stay). */
  configure(options) {
    const desc = allocStruct('crowd_desc');
    try {
      wasm.HEAPU8.copyWithin(desc, wasm._crowd_settings(live(this, 'crowd')), desc + layouts.crowd_desc.size);
      writeStruct(desc, 'crowd_desc', crowdDesc(options), 'Crowd options');
      withError((error) => wasm._crowd_configure(this.ptr, desc, error));
    } finally {
      wasm._free(desc);
    }
  }

  get count() { return wasm._crowd_count(live(this, 'crowd')); }
  set count(n) { checkCrowd(wasm._crowd_set_count(live(this, 'crowd'), n), this.ptr, 'count'); }
  get time() { return wasm._crowd_time(live(this, 'crowd')); }
  set strideMatching(on) { wasm._crowd_set_stride_matching(live(this, 'crowd'), !!on); }

  setTransform(index, x, y, z, yaw = 0) {
    checkCrowd(wasm._crowd_set_transform(live(this, 'crowd'), index, x, y, z, yaw), this.ptr, 'setTransform');
  }
  setVelocity(index, vx, vz) { checkCrowd(wasm._crowd_set_velocity(live(this, 'crowd'), index, vx, vz), this.ptr, 'setVelocity'); }
  setScale(index, scale) { checkCrowd(wasm._crowd_set_scale(live(this, 'crowd'), index, scale), this.ptr, 'setScale'); }
  setPhase(index, phase) { checkCrowd(wasm._crowd_set_phase(live(this, 'crowd'), index, phase), this.ptr, 'setPhase'); }
  setSpeed(index, metresPerSecond) {
    checkCrowd(wasm._crowd_set_speed(live(this, 'crowd'), index, metresPerSecond), this.ptr, 'setSpeed');
  }
  remove(index) { checkCrowd(wasm._crowd_remove(live(this, 'crowd'), index), this.ptr, 'remove'); }

  /** Tint [r, g, b] (0..255), palette choices per region, accessory bits. */
  setVariant(index, { tint = [255, 255, 255], regionChoice = [], accessories = 0 } = {}) {
    const variant = allocStruct('crowd_variant');
    try {
      writeStruct(variant, 'crowd_variant', { tint, regionChoice, accessories }, 'variant');
      checkCrowd(wasm._crowd_set_variant(live(this, 'crowd'), index, variant), this.ptr, 'setVariant');
    } finally {
      wasm._free(variant);
    }
  }

  /** Plays a clip (name or index): looping, or once with { once: true }; `fade` seconds of cross-fade. */
  play(index, clip, { rate = 1, fade = 0, once = false } = {}) {
    const call = once ? wasm._crowd_play_once : wasm._crowd_play;
    checkCrowd(call(live(this, 'crowd'), index, this.asset.clipIndex(clip), rate, fade), this.ptr, 'play');
  }

  /** The instance's record as stored (crowd_get), fields decoded to numbers. */
  get(index) {
    const record = allocStruct('crowd_record');
    try {
      checkCrowd(wasm._crowd_get(live(this, 'crowd'), index, record), this.ptr, 'get');
      return readStruct(record, 'crowd_record');
    } finally {
      wasm._free(record);
    }
  }

  // Bulk setters: instances first .. first + n - 1, one call into wasm for all of them.
  #bulk(where, call) {
    const result = call(this.failedPtr);
    if (result !== 0) checkCrowd(result, this.ptr, `${where}: instance ${wasm.HEAPU32[this.failedPtr >> 2]}`);
  }

  /** positions: Float32Array of x, y, z per instance; yaws: Float32Array, one per instance. */
  setTransforms(positions, yaws, first = 0) {
    const n = yaws.length;
    typed(positions, Float32Array, 3 * n, 'positions');
    typed(yaws, Float32Array, n, 'yaws');
    this.#bulk('setTransforms', (failed) => wasm._cbw_set_transforms(live(this, 'crowd'), first, n,
      scratchCopy(0, positions), scratchCopy(1, yaws), failed));
  }

  /** clips: Uint32Array of clip indices; rates: optional Float32Array (default 1 each). */
  playMany(clips, { rates, fade = 0, once = false, first = 0 } = {}) {
    typed(clips, Uint32Array, clips.length, 'clips');
    if (rates) typed(rates, Float32Array, clips.length, 'rates');
    this.#bulk('playMany', (failed) => wasm._cbw_play(live(this, 'crowd'), first, clips.length,
      scratchCopy(0, clips), rates ? scratchCopy(1, rates) : 0, fade, once ? 1 : 0, failed));
  }

  setSpeeds(speeds, first = 0) { this.#floats('setSpeeds', wasm._cbw_set_speeds, speeds, first); }
  setScales(scales, first = 0) { this.#floats('setScales', wasm._cbw_set_scales, scales, first); }
  setPhases(phases, first = 0) { this.#floats('setPhases', wasm._cbw_set_phases, phases, first); }
  /** velocities: Float32Array of vx, vz per instance. */
  setVelocities(velocities, first = 0) {
    typed(velocities, Float32Array, velocities.length, 'velocities');
    if (velocities.length % 2) throw new TypeError('crowdbake: velocities holds vx, vz pairs');
    this.#bulk('setVelocities', (failed) => wasm._cbw_set_velocities(live(this, 'crowd'), first,
      velocities.length / 2, scratchCopy(0, velocities), failed));
  }

  #floats(where, call, values, first) {
    typed(values, Float32Array, values.length, where);
    this.#bulk(where, (failed) => call(live(this, 'crowd'), first, values.length, scratchCopy(0, values), failed));
  }

  /** Every live instance's position (x, y, z) and yaw at the crowd's time. */
  getTransforms() {
    const n = this.count;
    const xyz = alloc(12 * n), yaw = alloc(4 * n);
    try {
      wasm._cbw_get_transforms(this.ptr, xyz, yaw);
      return { positions: wasm.HEAPF32.slice(xyz >> 2, (xyz >> 2) + 3 * n), yaws: wasm.HEAPF32.slice(yaw >> 2, (yaw >> 2) + n) };
    } finally {
      wasm._free(xyz);
      wasm._free(yaw);
    }
  }

  /**
   * Where a socket ("head", "hand_r": asset.sockets) of each instance is at the crowd's time, as the
   * renderer draws attachments there (crowd_socket_transforms): a Float32Array of 12 numbers per
   * instance, the 3x4 row-major world transform (rows x, y, z; column 3 the position). indices: a
   * Uint32Array of instances, or every live instance. Needs an asset baked with bones.
   */
  getSocketTransforms(socket, indices) {
    const names = this.asset.sockets;
    const s = typeof socket === 'number' ? socket : names.indexOf(socket);
    if (!(s >= 0 && s < names.length))
      throw new CrowdbakeError('CROWD_ERROR_ARGUMENT', `crowdbake: the asset has no socket ${JSON.stringify(socket)} ` +
        `(it has ${names.length ? names.join(', ') : 'none'})`);
    if (indices) typed(indices, Uint32Array, indices.length, 'indices');
    const n = indices ? indices.length : this.count;
    const out = alloc(48 * n);
    try {
      checkCrowd(wasm._crowd_socket_transforms(live(this, 'crowd'), indices ? scratchCopy(0, indices) : 0, n, s, out),
        this.ptr, 'getSocketTransforms');
      return wasm.HEAPF32.slice(out >> 2, (out >> 2) + 12 * n);
    } finally {
      wasm._free(out);
    }
  }

  /**
   * Advances time by dt seconds and culls for the camera: { view, projection } (Float32Array(16) each,
   * column-major, as three.js and gl-matrix keep them) and viewportHeight in pixels. With a Renderer
   * on this crowd (camera.renderer, else the first one made), the renderer fills in who culls and its
   * attachments' margin (crowd_gl_view).
   */
  update(dt, camera) {
    const view = this.viewPtr;
    const height = camera.viewportHeight ?? 720;
    const renderer = camera.renderer ?? this.renderers.values().next().value;
    if (renderer) {
      const matrices = this.matricesPtr;
      writeFloats(matrices, matrix(camera.view, 'camera.view'));
      writeFloats(matrices + 64, matrix(camera.projection, 'camera.projection'));
      renderer.makeCurrent();
      wasm._crowd_gl_view(live(renderer, 'renderer'), matrices, matrices + 64, height, view);
    } else { // every frame: straight to the offsets, no struct walk
      const [viewAt, projectionAt, heightAt] = viewOffsets();
      wasm.HEAPF32.set(matrix(camera.view, 'camera.view'), (view + viewAt) >> 2);
      wasm.HEAPF32.set(matrix(camera.projection, 'camera.projection'), (view + projectionAt) >> 2);
      wasm.HEAPF32[(view + heightAt) >> 2] = height;
    }
    this.framePtr = wasm._crowd_update(live(this, 'crowd'), dt, view);
    return this.framePtr;
  }

  /** The last update's figures (crowd_stats), camelCase; the simulation's under `simulation`. */
  get stats() {
    const stats = this.framePtr ? readStruct(this.framePtr + fieldOf('crowd_frame', 'stats')[1], 'crowd_stats') : {};
    if (this.framePtr) {
      stats.time = readValue(this.framePtr + fieldOf('crowd_frame', 'time')[1], 'f32');
      stats.drawCount = readValue(this.framePtr + fieldOf('crowd_frame', 'draw_count')[1], 'u32');
    }
    if (this.simulation && this.simulation.ptr) stats.simulation = this.simulation.stats;
    return stats;
  }

  /**
   * What happened during the last update's time step (crowd_frame.events, crowd.h "Events"): one-shots
   * that finished ({ kind: 'finished', instance, clip, time, holding }: holding is false when a fade to
   * another clip was running at its end) and, with the option markerEvents: 1, clip markers crossed
   * ({ kind: 'marker', instance, clip, time, marker }: the marker's name, e.g. "footstep_l"; see
   * asset.clips[clip].markers). Times are the crowd's shader time of the crossing.
   */
  get events() {
    if (!this.framePtr) return [];
    const count = readValue(this.framePtr + fieldOf('crowd_frame', 'event_count')[1], 'u32');
    const first = readValue(this.framePtr + fieldOf('crowd_frame', 'events')[1], 'ptr');
    const markers = this.asset.info.clips.flatMap((c) => c.markers);
    const events = [];
    for (let i = 0; i < count; i++) {
      const e = readStruct(first + i * layouts.crowd_event.size, 'crowd_event');
      const common = { instance: e.instance, clip: e.clip, time: e.time };
      events.push(e.kind === 1 ? { kind: 'finished', ...common, holding: e.detail === 1 }
        : { kind: 'marker', ...common, marker: markers.find((m) => m.index === e.detail)?.name });
    }
    return events;
  }

  /** Gives every byte back: the simulation and renderers on this crowd go with it. */
  destroy() {
    if (!this.ptr) return;
    if (this.simulation) this.simulation.destroy();
    for (const renderer of this.renderers) renderer.destroy();
    wasm._crowd_destroy(this.ptr);
    wasm._free(this.viewPtr);
    wasm._free(this.matricesPtr);
    wasm._free(this.failedPtr);
    this.asset.users.delete(this);
    this.ptr = this.viewPtr = this.matricesPtr = this.failedPtr = this.framePtr = 0;
  }
}

// ---- the simulation ---------------------------------------------------------------------------------

const spawnKeys = ['scaleMin', 'scaleMax', 'shirts', 'saturationMin', 'saturationMax', 'valueMin', 'valueMax',
  'accessories', 'accessoryOdds'];

/**
 * crowdbake's own steering (crowd_sim): options are crowd_sim_desc's fields in camelCase, with
 * `scenario` a name of Scenario, `obstacles` [{ x, z, radius }], `spawn` crowd_spawn_options (clip
 * names as idleClip / cheerClip).
 */
export class Simulation {
  constructor(crowd, options = {}) {
    ready();
    if (crowd.simulation) throw new Error('crowdbake: this crowd already has a simulation');
    const { scenario = 'wander', obstacles = [], spawn = {}, ...rest } = options;
    const desc = allocStruct('crowd_sim_desc');
    const obstaclesPtr = alloc(12 * obstacles.length);
    const out = alloc(4);
    const strings = [];
    try {
      writeStruct(desc, 'crowd_sim_desc', { ...rest, scenario: enumValue(Scenario, scenario, 'scenario') }, 'Simulation options');
      writeValue(desc + fieldOf('crowd_sim_desc', 'target')[1], 'ptr', live(crowd, 'crowd'));
      obstacles.forEach((o, i) => writeFloats(obstaclesPtr + 12 * i, [o.x, o.z, o.radius]));
      writeValue(desc + fieldOf('crowd_sim_desc', 'obstacles')[1], 'ptr', obstaclesPtr);
      writeValue(desc + fieldOf('crowd_sim_desc', 'obstacle_count')[1], 'u32', obstacles.length);
      this.#writeSpawn(desc + fieldOf('crowd_sim_desc', 'spawn')[1], spawn, strings);
      withError((error) => wasm._crowd_sim_create(desc, out, error));
      this.ptr = wasm.HEAPU32[out >> 2];
    } finally {
      for (const s of [desc, obstaclesPtr, out, ...strings]) wasm._free(s);
    }
    this.crowd = crowd;
    crowd.simulation = this;
  }

  #writeSpawn(ptr, spawn, strings) {
    const { idleClip, cheerClip, ...looks } = spawn;
    for (const key of Object.keys(looks))
      if (!spawnKeys.includes(key)) throw new TypeError(`crowdbake: spawn has no option "${key}"`);
    writeStruct(ptr, 'crowd_spawn_options', looks, 'spawn');
    for (const [key, name] of [['idle_clip', idleClip], ['cheer_clip', cheerClip]]) {
      if (name === undefined) continue;
      const bytes = wasm.lengthBytesUTF8(name) + 1;
      const text = alloc(bytes);
      strings.push(text);
      wasm.stringToUTF8(name, text, bytes);
      writeValue(ptr + fieldOf('crowd_spawn_options', key)[1], 'ptr', text);
    }
  }

  /** Sets the crowd's count and places every agent anew. */
  spawn(count) {
    withError(() => wasm._crowd_sim_spawn(live(this, 'simulation'), count));
  }
  set scenario(name) { wasm._crowd_sim_set_scenario(live(this, 'simulation'), enumValue(Scenario, name, 'scenario')); }
  /** 'auto' (on up to separationLimit agents), true or false. */
  set separation(mode) {
    wasm._crowd_sim_set_separation(live(this, 'simulation'), mode === 'auto' ? 0 : mode ? 1 : -1);
  }
  step(dt) { wasm._crowd_sim_step(live(this, 'simulation'), dt); }
  get stats() { return readStruct(wasm._crowd_sim_get_stats(live(this, 'simulation')), 'crowd_sim_stats'); }

  destroy() {
    if (!this.ptr) return;
    wasm._crowd_sim_destroy(this.ptr);
    this.crowd.simulation = null;
    this.ptr = 0;
  }
}

// ---- the WebGL2 renderer ----------------------------------------------------------------------------

const contexts = new WeakMap(); // WebGL2RenderingContext -> { handle, users }
const modes = { vat: 0, bones: 1 };
const tints = { default: 0, region: 1, wash: 2 };
const uploads = { default: 0, orphan: 1, ring: 2, 'in-place': 3 };
// What draws: WebGL2 in this version whatever the choice; 'auto' and 'webgpu' ask the browser for a
// WebGPU device and rendererStatus says whether it came and, when not, why.
const rendererChoices = { auto: 0, webgpu: 1, webgl2: 2 };

/** Daylight as the demo lights it: linear colours, the sun high in the south-east. */
export const defaultLighting = Object.freeze({
  sunDirection: [0.3500, 0.8000, 0.4500].map((v, _, a) => v / Math.hypot(...a)),
  sunColor: [2.1, 1.95, 1.75], skyColor: [0.36, 0.42, 0.52], groundColor: [0.17, 0.15, 0.12],
  fogColor: [0.62, 0.70, 0.82], fogDensity: 0,
});

/**
 * Draws one crowd into a WebGL2 context the page owns (canvas.getContext('webgl2'), or three.js's
 * renderer.getContext()). GL state afterwards is what crowdbake/gl.h lists; the page restores what it
 * relies on. Options: mode 'vat' | 'bones', shadowMapSize, tint, tintRegion, upload, lodBand, debug.
 */
export class Renderer {
  constructor(gl, crowd, options = {}) {
    ready();
    if (!(typeof WebGL2RenderingContext !== 'undefined' && gl instanceof WebGL2RenderingContext))
      throw new TypeError('crowdbake: Renderer needs a WebGL2RenderingContext');
    let context = contexts.get(gl);
    if (!context) contexts.set(gl, context = { handle: wasm.registerContext(gl), users: 0 });
    context.users++;
    this.gl = gl;
    this.context = context;
    this.crowd = crowd;
    this.makeCurrent();
    const { mode = 'vat', tint = 'default', upload = 'default', renderer = 'auto', ...rest } = options;
    const desc = allocStruct('crowd_gl_desc');
    const out = alloc(4);
    try {
      this.rendererChoice = enumValue(rendererChoices, renderer, 'renderer');
      if (wasm._cbw_renderer_start(this.rendererChoice) !== 0)
        throw new TypeError(`crowdbake: renderer is one of ${Object.keys(rendererChoices).join(', ')}`);
      writeStruct(desc, 'crowd_gl_desc', { ...rest, mode: enumValue(modes, mode, 'mode'),
        tint: enumValue(tints, tint, 'tint'), upload: enumValue(uploads, upload, 'upload'), es: true }, 'Renderer options');
      writeValue(desc + fieldOf('crowd_gl_desc', 'asset')[1], 'ptr', live(crowd.asset, 'asset'));
      writeValue(desc + fieldOf('crowd_gl_desc', 'sizing_crowd')[1], 'ptr', live(crowd, 'crowd'));
      withError((error) => wasm._crowd_gl_create(desc, out, error));
      this.ptr = wasm.HEAPU32[out >> 2];
    } catch (error) {
      this.#release();
      throw error;
    } finally {
      wasm._free(desc);
      wasm._free(out);
    }
    this.scenePtr = allocStruct('crowd_gl_scene');
    this.lightPtr = alloc(64 + 16);
    this.target = null;
    crowd.renderers.add(this);
    crowd.asset.users.add(this);
  }

  makeCurrent() { wasm.makeContextCurrent(this.context.handle); }

  set mode(name) {
    this.makeCurrent();
    const result = wasm._crowd_gl_set_mode(live(this, 'renderer'), enumValue(modes, name, 'mode'));
    if (result !== 0) throw new CrowdbakeError(resultName(result), `mode: ${wasm.UTF8ToString(wasm._crowd_gl_last_error(this.ptr))}`);
  }

  /**
   * Where the shadow pass returns to and its viewport: a WebGLFramebuffer (null: the canvas) and
   * x, y, width, height. Call it after a resize, or each frame when the target changes.
   */
  setTarget(framebuffer, x, y, width, height) {
    const key = `${x},${y},${width},${height}`;
    if (this.target && this.target.framebuffer === framebuffer && this.target.key === key) return;
    this.makeCurrent();
    withError((error) => wasm._crowd_gl_set_target(live(this, 'renderer'), wasm.framebufferName(framebuffer),
      x, y, width, height, error));
    this.target = { framebuffer, key };
  }

  /**
   * Uploads the crowd's last update and draws it into the bound framebuffer: the shadow pass first
   * when scene.shadows is on (its light fitted around shadowCentre / shadowRadius), then the colour
   * pass. scene: { view, projection } plus defaultLighting's fields, shadows, exposure, flatColor.
   */
  render(scene) {
    const frame = this.crowd.framePtr;
    if (!frame) throw new Error('crowdbake: update the crowd before rendering it');
    this.makeCurrent();
    const lit = { ...defaultLighting, ...scene };
    const { shadowCentre = [0, 0, 0], shadowRadius = 60, ...fields } = lit;
    writeStruct(this.scenePtr, 'crowd_gl_scene', { ...fields, view: matrix(lit.view, 'scene.view'),
      projection: matrix(lit.projection, 'scene.projection'), shadows: !!lit.shadows }, 'scene');
    withError((error) => wasm._crowd_gl_upload(live(this, 'renderer'), frame, error));
    if (lit.shadows) {
      writeFloats(this.lightPtr + 64, [...lit.sunDirection, 0]);
      const centre = alloc(12);
      writeFloats(centre, shadowCentre);
      wasm._crowd_gl_fit_shadow(this.ptr, this.lightPtr + 64, centre, shadowRadius, this.lightPtr);
      wasm._free(centre);
      this.#pass(wasm._crowd_gl_render_shadows(this.ptr, frame, this.lightPtr), 'shadows');
    }
    this.#pass(wasm._crowd_gl_draw(this.ptr, frame, this.scenePtr), 'draw');
  }

  #pass(result, where) {
    if (result !== 0)
      throw new CrowdbakeError(resultName(result), `${where}: ${wasm.UTF8ToString(wasm._crowd_gl_last_error(this.ptr))}`);
  }

  /** Figures of the last passes (crowd_gl_stats), camelCase. */
  get stats() { return readStruct(wasm._crowd_gl_get_stats(live(this, 'renderer')), 'crowd_gl_stats'); }

  /** What draws (always 'webgl2' in this version). */
  get backend() { return 'webgl2'; }

  /**
   * The renderer option's outcome in words, as the demo page's HUD says it: "renderer: WebGL2
   * (WebGPU unavailable: no adapter)", "... (WebGPU: asking for a device)" while the browser answers,
   * "... (chosen)" for 'webgl2'.
   */
  get rendererStatus() { return wasm.UTF8ToString(wasm._cbw_renderer_label(this.rendererChoice)); }

  #release() {
    if (--this.context.users === 0) {
      wasm.deleteContext(this.context.handle);
      contexts.delete(this.gl);
    }
  }

  destroy() {
    if (!this.ptr) return;
    this.makeCurrent();
    wasm._crowd_gl_destroy(this.ptr);
    wasm._free(this.scenePtr);
    wasm._free(this.lightPtr);
    this.#release();
    this.crowd.renderers.delete(this);
    this.crowd.asset.users.delete(this);
    this.ptr = 0;
  }
}

/** Bytes the wasm heap has handed out and not had back (for leak checks). */
export function heapInUse() {
  return ready()._cbw_heap_in_use();
}

// ---- the bake, in a Web Worker ------------------------------------------------------------------------

let bakeWasm = null; // the baker's wasm, compiled once and handed to each worker

/** Fetches and compiles the baker's wasm ahead of a first bake() (which otherwise does it). */
export function prepareBake() {
  if (!bakeWasm) {
    bakeWasm = wasmBytes(new URL('./crowdbake-bake.wasm', import.meta.url)).then((bytes) => WebAssembly.compile(bytes));
    bakeWasm.catch(() => { bakeWasm = null; });
  }
  return bakeWasm.then(() => undefined);
}

async function inputFiles(input) {
  const bytesOf = async (x) => (x instanceof Blob ? new Uint8Array(await x.arrayBuffer())
    : x instanceof ArrayBuffer ? new Uint8Array(x) : new Uint8Array(x.buffer, x.byteOffset, x.byteLength).slice());
  if (input instanceof Blob || input instanceof ArrayBuffer || ArrayBuffer.isView(input)) {
    const bytes = await bytesOf(input);
    const glb = bytes.length >= 4 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46;
    const name = input.name || (glb ? 'model.glb' : 'model.gltf');
    return { files: [[name, bytes]], main: name };
  }
  const list = input.files ? Array.from(input.files) : [];
  if (!list.length) throw new TypeError('crowdbake: bake() takes a .glb or .gltf (bytes or a File), { files }, or { critter }');
  const files = await Promise.all(list.map(async (f) => [f.name, await bytesOf(f)]));
  const main = files.find(([name]) => /\.(glb|gltf)$/i.test(name));
  if (!main) throw new TypeError('crowdbake: bake({ files }) needs one .glb or .gltf among the files');
  return { files, main: main[0] };
}

// One idle worker is kept after a bake, its wasm instantiated, for the next bake; it is let go after
// IDLE_WORKER_MS (its heap is as large as the largest bake it ran). Bakes at the same time each get a
// worker of their own.
const IDLE_WORKER_MS = 30000;
let idle = null; // { worker, timer }

function takeWorker() {
  if (idle) {
    const { worker, timer } = idle;
    clearTimeout(timer);
    idle = null;
    return worker;
  }
  return new Worker(new URL('./bake-worker.mjs', import.meta.url), { type: 'module' });
}

function returnWorker(worker) {
  if (idle) {
    worker.terminate();
    return;
  }
  worker.onmessage = worker.onerror = null;
  idle = { worker, timer: setTimeout(() => { worker.terminate(); idle = null; }, IDLE_WORKER_MS) };
}

/**
 * Bakes a character in a Web Worker with the same C baker as the crowd-bake tool, and resolves to
 * { bytes, summary, warnings }: the .crowd (load it with new Asset(bytes)), what the bake decided
 * (summary.asset is an Asset's info), and the baker's warnings. `input`: a .glb or .gltf as bytes or
 * a File, { files } (a .gltf with its buffers and images, e.g. a file input's FileList),
 * { critter: KIND, seed } (a procedural critter: KIND one of critterKinds()' names, the seed picks its
 * look), or { humanoid: true } (the built-in character).
 * options: crowd_bake_desc's fields (fps, frames, clips,
 * lods, lodRatios, bones, tangents, compact, fp16, scale, height, texWidth, forward, up, ground,
 * clipRoles, maxBytes) and signal, an AbortSignal that cancels the bake. A refused file rejects with
 * a CrowdbakeError carrying the baker's message.
 */
export async function bake(input, options = {}, onProgress = null) {
  if (typeof Worker === 'undefined') throw new Error('crowdbake: bake() runs in a Web Worker: call it from a page');
  const { signal, ...bakeOptions } = options;
  if (signal && signal.aborted) throw new DOMException('the bake was cancelled', 'AbortError');
  const critter = input && input.critter ? `critter:${input.critter}:${input.seed ?? 1}`
    : input && input.humanoid ? 'humanoid' : null;
  const { files = [], main = null } = critter ? {} : await inputFiles(input);
  await prepareBake();
  const compiled = await bakeWasm;
  const worker = takeWorker();
  const warnings = [];
  return new Promise((resolve, reject) => {
    const finish = (settle, value, keep = true) => {
      if (keep) returnWorker(worker);
      else worker.terminate();
      if (signal) signal.removeEventListener('abort', abort);
      settle(value);
    };
    const abort = () => finish(reject, new DOMException('the bake was cancelled', 'AbortError'), false);
    if (signal) signal.addEventListener('abort', abort);
    worker.onerror = (event) => finish(reject, new Error(`crowdbake: the bake worker failed: ${event.message}`), false);
    worker.onmessage = ({ data }) => {
      if (data.type === 'progress') { if (onProgress) onProgress(data.fraction, data.stage); }
      else if (data.type === 'warning') warnings.push(data.message);
      else if (data.type === 'error') finish(reject, new CrowdbakeError(data.code, data.message), data.code !== 'CROWD_ERROR_WORKER');
      else if (data.type === 'done') finish(resolve, { bytes: data.bytes, summary: data.summary, warnings });
    };
    worker.postMessage({ compiled, files, main, critter, options: bakeOptions });
  });
}

let kindList = null;

/**
 * The procedural critter kinds bake() takes as { critter: name, seed }: resolves to
 * [{ name, plan, summary }, ...], asked of the baker in its worker once.
 */
export function critterKinds() {
  if (!kindList) {
    kindList = (async () => {
      await prepareBake();
      const compiled = await bakeWasm;
      const worker = takeWorker();
      return new Promise((resolve, reject) => {
        worker.onerror = (event) => { worker.terminate(); reject(new Error(`crowdbake: the bake worker failed: ${event.message}`)); };
        worker.onmessage = ({ data }) => {
          returnWorker(worker);
          if (data.type === 'kinds') resolve(data.kinds);
          else reject(new CrowdbakeError(data.code, data.message));
        };
        worker.postMessage({ compiled, kinds: true });
      });
    })();
    kindList.catch(() => { kindList = null; }); // a failed ask may be asked again
  }
  return kindList;
}
