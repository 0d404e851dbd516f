// The web demo's page logic: load the wasm module and the baked assets, start the C program on the
// canvas, and build a lil-gui panel from the settings table the C code exports. The same settings
// drive the native demo's keyboard shortcuts.
// URL options: ?debug=1 checks GL errors after every pass of every frame (each check is a
// synchronous round trip to the GPU process: for finding bugs, not for measuring); ?timers=1 asks
// for GPU time per pass through EXT_disjoint_timer_query_webgl2 where the browser offers it;
// ?upload=orphan|ring|in-place picks how records reach the GPU (the default is the measured winner);
// ?asset=NAME starts on a packaged asset (by file name, with or without .crowd), ?asset=menagerie on
// every packaged asset at once, each a kind in one world (demo/menagerie.c).
(function () {
  'use strict';
  const base = document.querySelector('meta[name=crowd-base]').content; // "" = relative to the page
  const message = document.getElementById('message');
  const canvas = document.getElementById('canvas');

  function fail(text) {
    message.textContent = text;
    console.error(text);
  }

  // Assets embedded in the page (the single-file build) or listed in assets/assets.json.
  async function loadAssets() {
    const embedded = document.querySelectorAll('script[type="application/x-crowd-asset"]');
    if (embedded.length) {
      return Array.from(embedded, (node) => {
        const text = atob(node.textContent.trim());
        const bytes = new Uint8Array(text.length);
        for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
        return { name: node.dataset.name, bytes };
      });
    }
    const list = await (await fetch(base + 'assets/assets.json')).json();
    return Promise.all(list.map(async (name) => {
      const response = await fetch(base + 'assets/' + name);
      if (!response.ok) throw new Error(name + ': HTTP ' + response.status);
      return { name, bytes: new Uint8Array(await response.arrayBuffer()) };
    }));
  }

  // The panel's folders (closed until opened): the settings a visitor reaches for first stay at the
  // top, so the panel fits a 720 px window; names not listed here stay at the top too.
  const folderOf = {
    auto_quality: 'look', mode: 'look', cross_fade: 'look', shadows: 'look', fog: 'look', grass: 'look', grass_budget: 'look', grass_distance: 'look', wind: 'look',
    tone: 'look', msaa: 'look', far_shadow: 'look', imposters: 'look', card_distance: 'look', motion_vectors: 'look',
    chunk: 'level of detail', lod_policy: 'level of detail', lod_bias: 'level of detail',
    vertex_budget: 'level of detail', shadow_max_lod: 'level of detail', far_pool: 'level of detail',
    path: 'level of detail',
    stride_matching: 'motion', separation: 'motion', trample: 'motion', mower: 'motion',
    compare: 'showpieces', gun: 'showpieces',
  };
  const folderOrder = ['look', 'level of detail', 'motion', 'showpieces'];

  function addSetting(api, parent, state, s) {
    state[s.name] = s.value;
    if (s.choices) {
      const options = {};
      s.choices.split('|').forEach((label, i) => { options[label] = i; });
      return parent.add(state, s.name, options);
    }
    if (s.min === 0 && s.max === 1 && s.step === 1) {
      state[s.name] = !!s.value;
      return parent.add(state, s.name);
    }
    if (s.name === 'asset') {
      const options = {};
      api.assetNames.forEach((name, i) => { options[name] = i; });
      if (api.assetNames.length >= 2) options.menagerie = api.assetNames.length; // every asset, one world
      return parent.add(state, s.name, options);
    }
    return parent.add(state, s.name, s.min, s.max, s.step);
  }

  function buildPanel(api) {
    const gui = new lil.GUI({ title: 'crowdbake' });
    const state = {};
    const controllers = {};
    const settings = JSON.parse(api.settingsJson());
    const folders = {};
    for (const title of folderOrder) folders[title] = null;
    const top = settings.filter((s) => !folderOf[s.name]);
    const filed = folderOrder.flatMap((title) => settings.filter((s) => folderOf[s.name] === title));
    for (const s of [...top, ...filed]) {
      const title = folderOf[s.name];
      if (title && !folders[title]) (folders[title] = gui.addFolder(title)).close();
      const c = addSetting(api, title ? folders[title] : gui, state, s);
      c.name(s.label).onChange((v) => {
        const result = api.set(s.name, typeof v === 'boolean' ? (v ? 1 : 0) : Number(v));
        if (result !== 0) console.warn('crowdbake: ' + s.name + ' refused: ' + api.error());
      });
      controllers[s.name] = c;
    }
    (folders.showpieces || gui).add({ benchmark: () => api.benchmark() }, 'benchmark').name('run benchmark (B)');
    return { gui, controllers, folders };
  }

  async function start() {
    if (!document.createElement('canvas').getContext('webgl2')) return fail('This page needs WebGL2.');
    const Module = await createCrowdDemo({
      canvas,
      locateFile: (path) => base + path,
      print: (text) => console.log(text),
      printErr: (text) => console.error(text),
    });
    const assets = await loadAssets();
    for (const asset of assets) {
      const pointer = Module._malloc(asset.bytes.length);
      Module.HEAPU8.set(asset.bytes, pointer);
      const index = Module.ccall('web_add_asset', 'number', ['number', 'number', 'string'],
                                 [pointer, asset.bytes.length, asset.name]);
      Module._free(pointer);
      if (index < 0) return fail('could not add ' + asset.name);
    }
    const params = new URLSearchParams(window.location.search);
    const flag = (name) => (params.get(name) === '1' ? 1 : 0);
    const upload = { orphan: 1, ring: 2, 'in-place': 3 }[params.get('upload')] || 0; // for measuring
    // ?renderer=webgpu|webgl2|auto (auto by default): WebGL2 draws; the HUD and stats say whether
    // WebGPU is there and, when it is not, why
    const renderer = params.get('renderer') || 'auto';
    if (Module.ccall('web_renderer', 'number', ['string'], [renderer]) !== 0)
      console.warn('crowdbake: ?renderer=' + renderer + ': not webgpu, webgl2 or auto; auto it is');
    if (Module.ccall('web_start', 'number', ['number', 'number', 'number'],
                     [flag('debug'), flag('timers'), upload]) !== 0) {
      return fail('the demo could not start');
    }
    message.remove();
    canvas.focus();
    const api = {
      assetNames: assets.map((a) => a.name),
      set: (name, value) => Module.ccall('web_set', 'number', ['string', 'number'], [name, value]),
      get: (name) => Module.ccall('web_get', 'number', ['string'], [name]),
      settingsJson: () => Module.ccall('web_settings_json', 'string', [], []),
      status: () => Module.ccall('web_status', 'string', [], []), // the HUD: plain words (more with hud = details)
      details: () => Module.ccall('web_status_details', 'string', [], []), // every figure, for tools and tests
      // frame_ms (wall clock), main_ms (the C frame's own time), main_fraction, gpu_shadow_ms and
      // gpu_color_ms (timer queries, -1 when unavailable), submitted/rasterised, draws, msaa, HUD size
      stats: () => JSON.parse(Module.ccall('web_stats_json', 'string', [], [])),
      error: () => Module.ccall('web_error', 'string', [], []),
      benchmark: () => Module.ccall('web_benchmark', null, [], []),
      // a short run: one or two counts, warm-up and measured frames per count (the browser test)
      benchmarkPlan: (counts, warmup, measure) => Module.ccall('web_benchmark_plan', null, Array(4).fill('number'),
                                                               [counts[0] || 0, counts[1] || 0, warmup, measure]),
      benchmarkReport: () => Module.ccall('web_benchmark_report', 'string', [], []),
      measureUpdate: (count, frames) => Module.ccall('web_measure_update', 'number', ['number', 'number'], [count, frames]),
      // crowd-bench's scene in wasm, apart from the page's crowd (up to millions): median ms per step + update
      measureScene: (count, warmup, frames) => Module.ccall('web_measure_scene', 'number', Array(3).fill('number'),
                                                            [count, warmup, frames]),
      key: (code) => Module.ccall('web_key', null, ['number'], [code]),
      lookAt: (eye, target) => Module.ccall('web_look_at', null, Array(6).fill('number'), [...eye, ...target]),
      // the walk camera, where it is, turned to instance `index` (0 = ok): what the crosshair (gun mode) aims at
      aimAt: (index) => Module.ccall('web_aim_at_instance', 'number', ['number'], [index]),
    };
    api.panel = buildPanel(api);
    // The panel follows the C state whatever changed it: the panel, the console, keys on the
    // canvas (handled in C), lookAt (which switches to the walk camera) or the benchmark.
    const sync = (name) => {
      const c = api.panel.controllers[name];
      if (!c) return;
      const now = api.get(name);
      const shown = typeof c.object[name] === 'boolean' ? now > 0.5 : now;
      if (c.object[name] !== shown) {
        c.object[name] = shown;
        c.updateDisplay();
      }
    };
    api.syncPanel = () => Object.keys(api.panel.controllers).forEach(sync);
    const rawSet = api.set, rawLookAt = api.lookAt, rawKey = api.key;
    api.set = (name, value) => {
      const result = rawSet(name, value);
      if (result === 0) sync(name);
      return result;
    };
    api.lookAt = (eye, target) => { rawLookAt(eye, target); sync('camera'); };
    const rawAimAt = api.aimAt;
    api.aimAt = (index) => { const result = rawAimAt(index); sync('camera'); return result; };
    api.key = (code) => { rawKey(code); api.syncPanel(); };
    canvas.addEventListener('keyup', () => api.syncPanel());
    setInterval(api.syncPanel, 1000); // the benchmark changes the count on its own
    const wanted = params.get('asset');
    if (wanted) {
      const index = wanted === 'menagerie' ? assets.length
        : assets.findIndex((a) => a.name === wanted || a.name === wanted + '.crowd');
      if (index < 0 || api.set('asset', index) !== 0) console.warn('crowdbake: ?asset=' + wanted + ': ' + api.error());
    }
    window.crowd = api; // for the console and the smoke test
    api.addAsset = (bytes, name) => {
      const pointer = Module._malloc(bytes.length);
      Module.HEAPU8.set(bytes, pointer);
      const index = Module.ccall('web_add_asset', 'number', ['number', 'number', 'string'], [pointer, bytes.length, name]);
      Module._free(pointer);
      if (index >= 0) {
        api.assetNames.push(name);
        const options = {};
        api.assetNames.forEach((n, i) => { options[n] = i; });
        if (api.assetNames.length >= 2) options.menagerie = api.assetNames.length;
        // lil-gui replaces a controller whose options change
        api.panel.controllers.asset = api.panel.controllers.asset.options(options).name('asset')
          .onChange((v) => api.set('asset', Number(v)));
      }
      return index;
    };
    api.addError = () => Module.ccall('web_add_error', 'string', [], []);
    // your own character, baked in a worker: needs module workers, so not from file:// (the one-file page)
    if (location.protocol !== 'file:') {
      import((base || './') + 'bake-panel.mjs').then((m) => { api.bakePanel = m.attachBakePanel(api, api.panel.gui); })
        .then(() => import((base || './') + 'critter-lab.mjs'))
        .then((m) => m.attachCritterLab(api, api.panel.gui, api.bakePanel.say))
        .then((lab) => { api.critterLab = lab; })
        .catch((error) => console.warn('crowdbake: no baking in this page: ' + error.message));
    }
  }

  start().catch((error) => fail('crowdbake failed to start: ' + (error && error.message ? error.message : error)));
})();
