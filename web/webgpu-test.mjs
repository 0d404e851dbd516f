// The WGSL record decode against the C decode, in Chromium with WebGPU on SwiftShader's Vulkan: the
// vectors tests/record_vectors.c wrote natively (real records: turns, cross-fades, one-shots, a time
// rebase, and the C decode's values) are decoded by record.wgsl in a compute pass that C drives
// through our own binding (tests/webgpu_decode_check.c in web/webgpu-check.html), read back without
// waiting, and compared there within bounds taken from the float32 arithmetic. Prints the worst
// error of each field against its bound, and fails on any value past it or on a missing kind.
//   node web/webgpu-test.mjs --web build-web --vectors build/record_vectors.bin
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium, serve } from './harness.mjs';

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const web = path.resolve(option('--web', 'build-web'));
const vectors = path.resolve(option('--vectors', 'build/record_vectors.bin'));
const here = path.dirname(new URL(import.meta.url).pathname);

// the page, the check's wasm and the vectors in one folder of the web build, served as a site would be
const root = path.join(web, 'webgpu-check');
fs.rmSync(root, { recursive: true, force: true });
fs.mkdirSync(root);
fs.copyFileSync(path.join(here, 'webgpu-check.html'), path.join(root, 'index.html'));
for (const file of ['crowd-webgpu-check.mjs', 'crowd-webgpu-check.wasm'])
  fs.copyFileSync(path.join(web, file), path.join(root, file));
fs.copyFileSync(vectors, path.join(root, 'vectors.bin'));

const start = Date.now();
const server = await serve(root);
const browser = await launchChromium({ webgpu: true });
let result;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url + 'index.html');
  await page.waitForFunction(() => window.checkResult, null, { timeout: 60000 });
  result = await page.evaluate(() => window.checkResult);
  if (errors.length) result = { ...result, passed: false, console: errors };
} finally {
  await browser.close();
  server.stop();
}

const seconds = ((Date.now() - start) / 1000).toFixed(1);
if (result.fields) {
  for (const [name, f] of Object.entries(result.fields))
    console.log(`  ${name.padEnd(12)} worst ${f.worst.toExponential(2)}  (${(100 * f.worst_of_bound).toFixed(1)} % of its bound` +
                `, vector ${f.at})  failures ${f.failures}`);
  console.log(`  kinds: ${Object.entries(result.kinds).map(([k, n]) => `${k} ${n}`).join(', ')}; yaw not compared ` +
              `at the speed threshold: ${result.skipped_yaw}`);
}
const missing = result.kinds ? Object.entries(result.kinds).filter(([, n]) => n === 0).map(([k]) => k) : [];
if (!result.passed || missing.length) {
  console.log('FAIL WGSL record decode against the C decode: ' +
              JSON.stringify(missing.length ? { ...result, missing } : result));
  process.exit(1);
}
console.log(`ok   WGSL record decode agrees with the C decode on ${result.vectors} vectors ` +
            `(GPU pass and comparison ${result.ms.toFixed(0)} ms; ${seconds} s with Chromium)`);
