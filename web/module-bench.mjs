// The JavaScript API's per-frame cost against the same C in wasm (a benchmark, not a test): crowd-bench's
// scene stepped and updated through crowdbake.mjs (web/module/test/api-bench.mjs) and inside C by the
// demo's measureScene, alternating in one Chromium, medians of medians and their ratio.
//   node web/module-bench.mjs --dist dist [--counts 100000,1000000] [--rounds 3] [--frames 120]
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium, serve } from './harness.mjs';

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const dist = path.resolve(option('--dist', 'dist'));
const counts = option('--counts', '100000,1000000').split(',').map(Number);
const rounds = Number(option('--rounds', '3'));
const frames = Number(option('--frames', '120'));
const here = path.dirname(new URL(import.meta.url).pathname);
fs.rmSync(path.join(dist, 'module-test'), { recursive: true, force: true });
fs.cpSync(path.join(here, 'module', 'test'), path.join(dist, 'module-test'), { recursive: true });

const server = await serve(dist, '--isolate');
const browser = await launchChromium();
const demo = await browser.newPage({ viewport: { width: 640, height: 360 } });
await demo.goto(server.url + 'index.html');
await demo.waitForFunction(() => window.crowd, null, { timeout: 120000 });
await demo.evaluate(() => { window.crowd.set('paused', 1); window.crowd.set('count', 100); }); // keep the page's own frames light
const api = await browser.newPage();
await api.goto(server.url + 'module-test/api-bench.html');
await api.waitForFunction(() => window.apiBenchReady, null, { timeout: 120000 });
console.log(`cross-origin isolated (5 us timers): ${await api.evaluate(() => window.crossOriginIsolated)}`);

const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
for (const count of counts) {
  const c = [], js = [];
  for (let r = 0; r < rounds; r++) {
    c.push(await demo.evaluate(([n, f]) => window.crowd.measureScene(n, 15, f), [count, frames]));
    js.push(await api.evaluate(([n, f]) => window.measureApi(n, 15, f), [count, frames]));
  }
  console.log(`${count} instances: C loop (measureScene) ${median(c).toFixed(3)} ms [${c.map((v) => v.toFixed(3))}], ` +
    `JavaScript API ${median(js).toFixed(3)} ms [${js.map((v) => v.toFixed(3))}], ratio ${(median(js) / median(c)).toFixed(3)}`);
}
await browser.close();
server.stop();
