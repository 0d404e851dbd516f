// Browser frame benchmark: Debian's Chromium (SwiftShader WebGL2) on one or more builds of the
// page, in one sitting, alternating between them round by round, at the seed's camera
// ((28, 16, 44) -> (0, 1.2, 0), 58 degrees, 1280 x 720, shadows and fog on). Per count it reports
// the median frame (the interval between requestAnimationFrame ticks) and the median main-thread
// time per frame (the time spent inside the page's requestAnimationFrame callbacks: JavaScript,
// wasm and the GL calls it makes), measured by the page, not by the demo, so any build compares.
//   node web/bench.mjs --site after=dist --site before=/path/to/before/dist --site ring='dist?upload=ring' --msaa 0,4 \
//        --counts 1000,4000,20000,100000 --frames 4 --warmup 2 --rounds 2 [--json rows.json]
// A site may end in '|name=value,...': demo settings set after load (e.g. 'dist|paused=1', a crowd
// that uploads nothing), for finding where the page's time goes.
// MSAA: builds with an 'msaa' setting get it set (0 off, 2 = 2x, 4 = 4x); builds without one get
// the canvas's antialias attribute forced (Chromium's default multisampling, 4x here).
// --runtime 15,420: instead of frames, the runtime's CPU cost on crowd-bench's scene inside the page
// (window.crowd.measureScene: wasm, one thread, a crowd of its own apart from the page's, which is
// set to 1,000), per count after each of these warm-ups, the median of --frames steps (default 30
// here); this repo's page only, one page open at a time:
//   node web/bench.mjs --site after=dist --site before=/path/to/before/dist --runtime 15,420 --counts 100000,1000000 --rounds 3
// --seed label=dir[?query]: a build of the seed's three.js page (not in this repo: rebuilt from its
// public source, see docs/seed-comparison.md), driven through its own panel and globals instead of
// window.crowd: the instances slider for the count, its orbit camera for the view; its automatic
// resolution is turned off and the pixel ratio held at 1, so both pages draw 1280 x 720.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';

// CPU ms used so far by Chromium's GPU processes (SwiftShader and the compositor run there): per frame it
// varies less than the frame on a shared machine, whose other load stretches wall-clock time.
function gpuProcessMs() {
  let ms = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=gpu-process')) continue;
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ms += (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, at 100 ticks per second
    } catch { /* gone meanwhile */ }
  }
  return ms;
}

const argv = process.argv.slice(2);
const all = (name) => argv.flatMap((a, i) => (a === name ? [argv[i + 1]] : []));
const option = (name, fallback) => all(name)[0] ?? fallback;
// --site label=dir[?query]: the same build may appear twice with different URL options
const parseSite = (kind, s) => {
  const [label, spec] = [s.slice(0, s.indexOf('=')), s.slice(s.indexOf('=') + 1)];
  const [rest, sets] = spec.split('|');
  const [dir, q] = rest.split('?');
  const settings = (sets ? sets.split(',') : []).map((kv) => [kv.split('=')[0], Number(kv.split('=')[1])]);
  return { label, kind, dir: path.resolve(dir), query: q ? '?' + q : '', settings };
};
// in command-line order, so the rounds alternate between the sites as written
const sites = argv.flatMap((a, i) => (a === '--site' ? [parseSite('crowd', argv[i + 1])]
  : a === '--seed' ? [parseSite('seed', argv[i + 1])] : []));
const counts = option('--counts', '1000,4000,20000,100000').split(',').map(Number);
const msaas = option('--msaa', '0,4').split(',').map(Number);
const measured = Number(option('--frames', '4'));
const warmup = Number(option('--warmup', '2'));
const rounds = Number(option('--rounds', '1'));
const query = option('--query', '');
const jsonOut = option('--json', null);
const runtimeWarmups = option('--runtime', null) ? option('--runtime').split(',').map(Number) : null;
const here = path.dirname(new URL(import.meta.url).pathname);
if (!sites.length) throw new Error('no --site label=dir (or --seed label=dir)');

function serve(root) {
  return new Promise((resolve, reject) => {
    const server = spawn(process.execPath, [path.join(here, 'serve.mjs'), root, '0', '--prefix', '/b/']);
    server.stdout.on('data', (data) => {
      const match = /at (http:\/\/\S+)/.exec(String(data));
      if (match) resolve({ url: match[1], stop: () => server.kill() });
    });
    server.on('error', reject);
    setTimeout(() => reject(new Error('the static server did not start')), 10000);
  });
}

// Runs in the page before anything else: time every requestAnimationFrame callback, grouped by
// the frame it belongs to, and optionally force the canvas's antialias attribute.
function instrument(antialias) {
  const raf = window.requestAnimationFrame.bind(window);
  window.__ticks = new Map(); // frame timestamp -> main-thread ms in callbacks
  window.requestAnimationFrame = (callback) => raf((time) => {
    const t0 = performance.now();
    try {
      callback(time);
    } finally {
      window.__ticks.set(time, (window.__ticks.get(time) || 0) + performance.now() - t0);
    }
  });
  if (antialias !== null) {
    const getContext = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (type, attributes) {
      return getContext.call(this, type, type === 'webgl2' ? { ...(attributes || {}), antialias } : attributes);
    };
  }
}

// How the bench drives a page. Each function runs in the page (page.evaluate), so each stands
// alone. 'crowd' is this repo's page (window.crowd); 'seed' is the seed's page, which has no such
// API: its lil-gui panel (window.gui), orbit rig (window.rig) and test hooks (window.__vat).
const drivers = {
  crowd: {
    ready: () => !!window.crowd,
    prepare: () => {},
    setCount: (n) => window.crowd.set('count', n),
    lookAt: () => window.crowd.lookAt([28, 16, 44], [0, 1.2, 0]),
    hasMsaa: () => JSON.parse(window.crowd.settingsJson()).some((s) => s.name === 'msaa'),
    // triangles: the colour pass's plus the shadow pass's, as the demo counts them
    stats: () => {
      const s = window.crowd.stats ? window.crowd.stats() : null;
      const canvas = document.getElementById('canvas');
      return s ? { triangles: s.triangles !== undefined ? s.triangles + s.shadow_triangles : -1,
                   gpu: s.gpu_color_ms, samples: s.msaa !== undefined ? s.msaa : -1,
                   size: `${canvas.width}x${canvas.height}` } : null;
    },
  },
  seed: {
    ready: () => !!(window.__vat && window.__vat.ready && window.gui && window.rig),
    // Its panel's own controls. Automatic resolution walks the pixel ratio down to 0.6 below 30
    // fps, which would compare different pixel counts: off, and the ratio back at 1 (on the
    // renderer: the slider still reads 1, so setting it to 1 would change nothing).
    prepare: () => {
      const control = (name) => window.gui.controllersRecursive().find((c) => c.property === name);
      control('autoRes').setValue(false);
      window.renderer.setPixelRatio(1);
      control('fov').setValue(58);
    },
    setCount: (n) => window.gui.controllersRecursive().find((c) => c.property === 'count').setValue(n),
    lookAt: () => {
      window.camera.position.set(28, 16, 44);
      window.rig.orbit.target.set(0, 1.2, 0);
      window.rig.orbit.update();
    },
    hasMsaa: () => false,
    // its renderer counts both passes (info.autoReset off, reset once a frame)
    stats: () => {
      const gl = window.renderer.getContext();
      return { triangles: window.__vat.stats.triangles, gpu: -1, samples: gl.getParameter(gl.SAMPLES),
               size: `${gl.drawingBufferWidth}x${gl.drawingBufferHeight}` };
    },
  },
};

const frames = (page, n) => page.evaluate((count) => new Promise((done) => {
  let k = 0;
  const step = () => (++k >= count ? done() : requestAnimationFrame(step));
  requestAnimationFrame(step);
}), n);

const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

async function measure(browser, site, msaa) {
  const driver = drivers[site.kind];
  const hasSetting = site.hasMsaa;
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.addInitScript(instrument, hasSetting ? null : msaa > 0);
  await page.goto(site.url + (site.query || query));
  await page.waitForFunction(driver.ready, null, { timeout: 300000 });
  await page.evaluate(driver.prepare);
  if (hasSetting) await page.evaluate((v) => window.crowd.set('msaa', v === 4 ? 2 : v === 2 ? 1 : 0), msaa);
  for (const [name, value] of site.settings) await page.evaluate(([n, v]) => window.crowd.set(n, v), [name, value]);
  const rows = [];
  for (const count of counts) {
    await page.evaluate(driver.setCount, count);
    await page.evaluate(driver.lookAt);
    await frames(page, warmup);
    await page.evaluate(() => window.__ticks.clear());
    const cpu0 = gpuProcessMs();
    await frames(page, measured + 1);
    const gpuProcess = (gpuProcessMs() - cpu0) / (measured + 1);
    const ticks = await page.evaluate(() => [...window.__ticks.entries()].sort((a, b) => a[0] - b[0]));
    const intervals = ticks.slice(1).map(([t], i) => t - ticks[i][0]);
    const main = ticks.slice(1).map(([, ms]) => ms);
    const stats = await page.evaluate(driver.stats);
    rows.push({ count, gpuProcess, frame: median(intervals), main: median(main), gpu: stats ? stats.gpu : -1,
                triangles: stats ? stats.triangles : -1, samples: stats ? stats.samples : -1,
                size: stats ? stats.size : '' });
  }
  await page.close();
  return rows;
}

async function measureRuntime(browser, site) {
  const page = await browser.newPage();
  await page.goto(site.url + (site.query || query));
  await page.waitForFunction(drivers.crowd.ready, null, { timeout: 300000 });
  await page.evaluate(() => window.crowd.set('count', 1000));
  const rows = [];
  for (const count of counts) {
    for (const w of runtimeWarmups) {
      const ms = await page.evaluate(([n, k, f]) => window.crowd.measureScene(n, k, f), [count, w, Number(option('--frames', '30'))]);
      rows.push({ count, warmup: w, ms });
    }
  }
  await page.close();
  return rows;
}

async function runtimeMain(browser) {
  if (sites.some((s) => s.kind !== 'crowd' || s.settings.length))
    throw new Error('--runtime measures this repo\'s page only, without |settings (--site label=dir)');
  const results = {};
  for (let round = 0; round < rounds; round++) {
    for (const site of sites) {
      const rows = await measureRuntime(browser, site);
      const failed = rows.find((r) => !(r.ms > 0));
      if (failed) throw new Error(`${site.label}: no measurement at ${failed.count} after ${failed.warmup} (memory?)`);
      (results[site.label] = results[site.label] || []).push(rows);
      console.log(`round ${round + 1} ${site.label}: ` + rows.map((r) => `${r.count} after ${r.warmup}: ${r.ms.toFixed(2)} ms`).join('; '));
    }
  }
  console.log(`\nmedian ms per simulation step + crowd update on crowd-bench's scene (wasm, one thread), ${rounds} round(s)`);
  for (const [label, runs] of Object.entries(results))
    console.log(label.padEnd(18) + runs[0].map((r, i) => `${r.count} after ${r.warmup}: ${median(runs.map((x) => x[i].ms)).toFixed(2)}`.padStart(28)).join(''));
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(results, null, 1));
}

async function main() {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless=new', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
           '--ignore-gpu-blocklist', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
  const servers = [];
  try {
    for (const site of sites) {
      const server = await serve(site.dir);
      servers.push(server);
      site.url = server.url;
      const probe = await browser.newPage();
      await probe.goto(site.url);
      await probe.waitForFunction(drivers[site.kind].ready, null, { timeout: 300000 });
      site.hasMsaa = await probe.evaluate(drivers[site.kind].hasMsaa);
      await probe.close();
    }
    if (runtimeWarmups) return await runtimeMain(browser);
    const results = {};
    for (let round = 0; round < rounds; round++) {
      for (const msaa of msaas) {
        for (const site of sites) {
          const rows = await measure(browser, site, msaa);
          const key = `${site.label} msaa ${msaa}`;
          (results[key] = results[key] || []).push(rows);
          console.log(`round ${round + 1} ${key}: ` + rows.map((r) => `${r.count}: frame ${r.frame.toFixed(0)} ms, ` +
            `main ${r.main.toFixed(1)} ms (${(100 * r.main / r.frame).toFixed(0)}%), GPU process ${r.gpuProcess.toFixed(0)} ms` +
            (r.triangles >= 0 ? `, ${(r.triangles / 1e6).toFixed(3)} M triangles` : '') +
            (r.samples >= 0 ? `, ${r.samples} samples` : '') + (r.size ? `, ${r.size}` : '')).join('; '));
        }
      }
    }
    console.log(`\nmedian frame / main-thread ms per frame (share) / GPU-process CPU ms per frame, ${measured} frames ` +
                `after ${warmup} warm-up, ${rounds} round(s), Chromium SwiftShader, 1280x720, seed camera`);
    console.log(['build'.padEnd(18), ...counts.map((c) => String(c).padStart(30))].join(''));
    for (const [key, runs] of Object.entries(results)) {
      const cells = counts.map((_, i) => {
        const frame = median(runs.map((r) => r[i].frame)), main = median(runs.map((r) => r[i].main));
        const gpuProcess = median(runs.map((r) => r[i].gpuProcess));
        return `${frame.toFixed(0)} / ${main.toFixed(1)} (${(100 * main / frame).toFixed(0)}%) / ${gpuProcess.toFixed(0)}`.padStart(30);
      });
      console.log([key.padEnd(18), ...cells].join(''));
    }
    // every round's rows, for working out ratios elsewhere
    if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(results, null, 1));
  } finally {
    for (const s of servers) s.stop();
    await browser.close();
  }
}

main().catch((error) => {
  console.log('FAIL ' + (error && error.stack ? error.stack : error));
  process.exit(1);
});
