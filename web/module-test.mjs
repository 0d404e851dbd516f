// The JavaScript package in Chromium (SwiftShader WebGL2), beside web/module/test/node-test.mjs in Node:
//  - the three.js example page: not blank, no console error, window.exampleStats shows the crowd drawn;
//  - depth shared with three.js (web/module/test/occlusion.mjs): a box in front hides the crowd, the
//    crowd hides a box behind it, and three draws every other pixel as it would without the crowd;
//    then the same with three's state reset skipped, to measure whether it is needed;
//  - the module in a page of its own (module.mjs): bulk setters at 100k, 20 crowds with renderers
//    made and destroyed with the heap back to its size, two contexts, a bad call's C message;
//  - the bake in a worker (bake.mjs) against the native crowd-bake on the same file: clips, roles,
//    strides, placement and LODs, a .gltf with its .bin, refusals, the size cap, a cancel;
//  - the demo page: a .glb picked becomes the crowd's asset with a plain-words summary and a download,
//    a refused file shows its reason, and the page keeps drawing.
//   node web/module-test.mjs --dist dist --shots build/shots/web --crowd-bake build/crowd-bake
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium, serve } from './harness.mjs';
import { decodePng } from './png.mjs';

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const dist = path.resolve(option('--dist', 'dist'));
const shots = path.resolve(option('--shots', 'build/shots/web'));
const crowdBake = path.resolve(option('--crowd-bake', 'build/crowd-bake'));
const here = path.dirname(new URL(import.meta.url).pathname);
fs.mkdirSync(shots, { recursive: true });
// the test pages sit beside the package, the example and the assets, as a site would hold them
const testDir = path.join(dist, 'module-test');
fs.rmSync(testDir, { recursive: true, force: true });
fs.cpSync(path.join(here, 'module', 'test'), testDir, { recursive: true });
const gltf = path.join(here, '..', 'assets', 'gltf');
for (const file of [path.join(gltf, 'Fox.glb'), path.join(gltf, 'RiggedSimple.gltf'), path.join(gltf, 'RiggedSimple0.bin'),
  path.join(gltf, '..', 'gltf-invalid', 'json', 'invalid_syntax.gltf')])
  fs.copyFileSync(file, path.join(testDir, path.basename(file)));

// The native baker with the options the page bakes with, for the page's bake to be measured against:
// the median of `runs` whole runs of crowd-bake (start, read, bake, check, write).
function nativeBakeMs(args, out, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const run = spawnSync(crowdBake, [...args, '--quiet', '--out', path.join(testDir, out)]);
    if (run.status !== 0) throw new Error(`crowd-bake failed: ${run.stderr}`);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[runs >> 1];
}

const failures = [];
function check(condition, message) {
  if (!condition) {
    failures.push(message);
    console.log('FAIL ' + message);
  }
}

async function open(browser, url, width, height) {
  const page = await browser.newPage({ viewport: { width, height } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { page, errors };
}

function distinctColours(png) {
  const { width, height, pixels } = decodePng(png);
  const seen = new Set();
  for (let i = 0; i < width * height * 4; i += 4 * 7) seen.add((pixels[i] >> 3) << 10 | (pixels[i + 1] >> 3) << 5 | pixels[i + 2] >> 3);
  return seen.size;
}

const server = await serve(dist);
const browser = await launchChromium();
try {
  // the example
  {
    const { page, errors } = await open(browser, server.url + 'examples/web/index.html', 960, 540);
    await page.waitForFunction(() => window.exampleStats && window.exampleStats.framesDrawn >= 3, null, { timeout: 120000 });
    const stats = await page.evaluate(() => window.exampleStats);
    const png = await page.screenshot({ path: path.join(shots, 'example-three.png') });
    const colours = distinctColours(png);
    console.log(`example: ${stats.instances} people, ${stats.submitted} drawn, ${colours} distinct colours`);
    check(stats.instances === 20000 && stats.submitted > 0, `example: stats ${JSON.stringify(stats)}`);
    check(colours > 40, `example: the frame looks blank (${colours} colours)`);
    check(!errors.length, `example: console errors: ${errors.join(' | ')}`);
    await page.close();
  }
  // depth shared with three.js
  {
    const { page, errors } = await open(browser, server.url + 'module-test/occlusion.html', 640, 360);
    await page.waitForFunction(() => window.occlusionReady, null, { timeout: 60000 });
    const c = await page.evaluate(() => window.runOcclusion(true));
    await page.screenshot({ path: path.join(shots, 'three-occlusion.png') });
    console.log(`three.js depth: ${JSON.stringify(c)}`);
    check(c.crowdPixels > 2000, `occlusion: only ${c.crowdPixels} crowd pixels`);
    check(c.redOverCrowd > 200 && c.redHidesCrowd === c.redOverCrowd,
      `occlusion: the box in front hides ${c.redHidesCrowd} of ${c.redOverCrowd} crowd pixels`);
    check(c.crowdOverBlue > 200 && c.crowdHidesBlue === c.crowdOverBlue,
      `occlusion: the crowd hides ${c.crowdHidesBlue} of ${c.crowdOverBlue} pixels of the box behind it`);
    check(c.offCrowdDiffer === 0, `occlusion: ${c.offCrowdDiffer} of ${c.offCrowd} pixels off the crowd differ from three alone`);
    check(c.boxesDiffer === 0, `occlusion: three's next frame without the crowd differs in ${c.boxesDiffer} pixels`);
    const t = await page.evaluate(() => window.runOcclusion(true, 0));
    console.log(`three.js depth in a render target: ${JSON.stringify(t)}`);
    check(t.crowdPixels > 2000 && t.redHidesCrowd === t.redOverCrowd && t.redOverCrowd > 200 &&
      t.crowdHidesBlue === t.crowdOverBlue && t.crowdOverBlue > 200 && t.offCrowdDiffer === 0 && t.boxesDiffer === 0,
      'occlusion in a render target: depth or three\'s pixels wrong');
    // 4 samples: edge pixels blend the crowd with what is behind it, so allow them (1 % of the crowd's)
    const m = await page.evaluate(() => window.runOcclusion(true, 4));
    console.log(`three.js depth in a 4-sample render target: ${JSON.stringify(m)}`);
    const edge = 0.01 * m.crowdPixels;
    check(m.redOverCrowd - m.redHidesCrowd <= edge && m.crowdOverBlue - m.crowdHidesBlue <= 0.04 * m.crowdOverBlue &&
      m.offCrowdDiffer <= edge && m.boxesDiffer === 0, 'occlusion in a 4-sample render target: depth or three\'s pixels wrong');
    const raw = await page.evaluate(() => window.runOcclusion(false));
    console.log(`three.js depth, state reset skipped: ${raw.offCrowdDiffer} of ${raw.offCrowd} pixels off the crowd and ` +
      `${raw.boxesDiffer} of three's next frame differ; box in front ${raw.redHidesCrowd}/${raw.redOverCrowd}, ` +
      `crowd in front ${raw.crowdHidesBlue}/${raw.crowdOverBlue}`);
    check(!errors.length, `occlusion: console errors: ${errors.join(' | ')}`);
    await page.close();
  }
  // the module in a page
  {
    const { page, errors } = await open(browser, server.url + 'module-test/module.html', 400, 300);
    await page.waitForFunction(() => window.moduleResults, null, { timeout: 120000 });
    const r = await page.evaluate(() => window.moduleResults);
    console.log(`module in the page: 100k bulk set in ${r.bulkMs.toFixed(1)} ms, ${r.litPixels} pixels drawn, ` +
      `heap ${r.heapBefore} -> ${r.heapAfter} after ${r.cycles} crowds with renderers; bad call: ${r.badCall}; ` +
      `${r.rendererStatus}`);
    for (const f of r.failures) check(false, 'module page: ' + f);
    check(!errors.length, `module page: console errors: ${errors.join(' | ')}`);
    await page.close();
  }
  // the bake in a worker, against the native baker
  {
    const nativeMs = nativeBakeMs([path.join(gltf, 'Fox.glb'), '--scale', '0.01', '--bones'], 'fox-native.crowd', 3);
    const nativeHumanoidMs = nativeBakeMs(['--bones'], 'humanoid-native.crowd', 3);
    const { page, errors } = await open(browser, server.url + 'module-test/bake.html', 400, 300);
    await page.waitForFunction(() => window.bakeResults, null, { timeout: 300000 });
    const r = await page.evaluate(() => window.bakeResults);
    const ratio = (a, b) => `${(a / b).toFixed(1)}x`;
    console.log(`bake in the page: Fox.glb in ${r.bakeMs.toFixed(0)} ms with the wasm's compile, ${r.bakeWarmMs.toFixed(0)} ` +
      `ms after it (native crowd-bake ${nativeMs.toFixed(0)} ms: ${ratio(r.bakeMs, nativeMs)}, ${ratio(r.bakeWarmMs, nativeMs)}; ` +
      `crowd_bake itself ${r.bakeInsideMs.toFixed(0)} ms); the humanoid in ${r.humanoidMs.toFixed(0)} ms (native ` +
      `${nativeHumanoidMs.toFixed(0)} ms: ${ratio(r.humanoidMs, nativeHumanoidMs)}; crowd_bake itself ${r.humanoidInsideMs.toFixed(0)} ms)`);
    console.log(`  frames while the worker baked: ${r.framesWhileBaking.count}, median ${r.framesWhileBaking.median.toFixed(1)} ms, ` +
      `worst ${r.framesWhileBaking.max.toFixed(1)} ms; stages ${r.stages.join(', ')}`);
    for (const [name, c] of [['Fox', r.fox], ['humanoid', r.humanoid]]) {
      console.log(`  ${name} against the native bake: size ${c.sameSize ? 'the same' : 'differs'}; apart by stride ${c.strideDiff} m, ` +
        `duration ${c.durationDiff} s, height ${c.heightDiff} m, ground ${c.groundDiff} m, bounds ${c.boundsDiff} m; ` +
        `LOD triangles (page, native) ${JSON.stringify(c.lods)}`);
      check(c.strideDiff <= 1e-5 && c.durationDiff <= 1e-6 && c.heightDiff <= 1e-5 && c.groundDiff <= 1e-5 && c.boundsDiff <= 1e-4,
        `bake page: ${name}'s strides, durations, placement or bounds differ from the native bake's beyond the bounds`);
      check(c.lods.every(([here, there]) => Math.abs(here - there) <= 0.01 * there),
        `bake page: ${name}'s LOD triangles more than 1 % from the native bake's: ${JSON.stringify(c.lods)}`);
    }
    console.log(`  .gltf + .bin: ${r.gltfClips} clip(s); refused: ${r.refused}; capped: ${r.capped}; critter: ` +
      `${JSON.stringify(r.critter)}`);
    for (const f of r.failures) check(false, 'bake page: ' + f);
    check(!errors.length, `bake page: console errors: ${errors.join(' | ')}`);
    await page.close();
  }
  // the demo page: your own character, baked in the page
  {
    const { page, errors } = await open(browser, server.url + 'index.html', 1280, 720);
    await page.waitForFunction(() => window.crowd && window.crowd.bakePanel, null, { timeout: 120000 });
    await page.evaluate(() => window.crowd.set('count', 2000)); // SwiftShader draws 20k foxes slowly
    const framesBefore = (await page.evaluate(() => window.crowd.stats())).frames;
    await page.setInputFiles('#bake-input', path.join(gltf, 'Fox.glb'));
    await page.waitForFunction(() => window.lastBake, null, { timeout: 120000 });
    // the centimetre Fox is read as centimetres with no option given; the page offers the file's own size
    const read = await page.evaluate(() => ({ height: window.lastBake.summary.asset.notes.height,
      decision: window.lastBake.summary.asset.notes.scaleDecision, undo: !!document.getElementById('bake-as-is') }));
    check(read.height > 0.5 && read.height < 1 && read.decision === 'detected' && read.undo,
      `demo page: the centimetre Fox was not read as centimetres with the undo offered: ${JSON.stringify(read)}`);
    await page.evaluate(() => { window.lastBake = null; document.getElementById('bake-as-is').click(); });
    await page.waitForFunction(() => window.lastBake, null, { timeout: 120000 });
    const asIs = await page.evaluate(() => window.lastBake.summary.asset.notes.height);
    check(asIs > 20, `demo page: the undo did not bake Fox at the file's size (${asIs} m)`);
    await page.evaluate(() => { window.lastBake = null; });
    await page.setInputFiles('#bake-input', path.join(gltf, 'Fox.glb'));
    await page.waitForFunction(() => window.lastBake, null, { timeout: 120000 });
    const fox = await page.evaluate(() => ({ ...window.lastBake, asset: window.crowd.get('asset'),
      height: window.lastBake.summary.asset.notes.height,
      text: document.getElementById('bake-box').innerText, link: !!document.querySelector('#bake-box a[download]') }));
    await page.waitForTimeout(1500);
    await page.screenshot({ path: path.join(shots, 'demo-own-character.png') });
    console.log(`demo page, own character: ${fox.ok ? 'baked' : 'refused'} ${fox.name} -> asset ${fox.asset}; the page says: ` +
      JSON.stringify(fox.text.split('\n').slice(0, 3)));
    check(fox.ok && fox.asset === fox.index && fox.link && fox.height > 0.5 && fox.height < 1,
      `demo page: Fox.glb did not become the crowd's asset at its size: ${JSON.stringify(fox)}`);
    check(/stands \d/.test(fox.text) && /Clips: /.test(fox.text), `demo page: no plain-words summary: ${fox.text}`);
    await page.evaluate(() => { window.lastBake = null; });
    await page.setInputFiles('#bake-input', path.join(gltf, '..', 'gltf-invalid', 'json', 'invalid_syntax.gltf'));
    await page.waitForFunction(() => window.lastBake, null, { timeout: 120000 });
    const bad = await page.evaluate(() => ({ ...window.lastBake, text: document.getElementById('bake-box').innerText }));
    // the page goes on drawing after the refusal (SwiftShader takes about a second a frame here)
    const drawing = await page.waitForFunction((n) => window.crowd.stats().frames >= n, framesBefore + 3, { timeout: 60000 })
      .then(() => true, () => false);
    const framesAfter = (await page.evaluate(() => window.crowd.stats())).frames;
    console.log(`demo page, refused file: ${JSON.stringify(bad.text)}; frames drawn ${framesBefore} -> ${framesAfter}`);
    check(!bad.ok && /JSON: syntax error/.test(bad.text), `demo page: the refused file's reason is not shown: ${bad.text}`);
    check(drawing, `demo page: the page stopped drawing (${framesBefore} -> ${framesAfter} frames)`);
    // the critter lab: a kind with a new seed becomes the crowd's asset, then joins the menagerie
    await page.waitForFunction(() => window.crowd.critterLab, null, { timeout: 120000 });
    const lab = await page.evaluate(async () => {
      const { kinds, bakeKind } = window.crowd.critterLab;
      const kind = kinds[Math.floor(kinds.length / 2)].name;
      const made = await bakeKind(kind, 424242);
      return { kinds: kinds.length, kind, made, asset: window.crowd.get('asset'), names: window.crowd.assetNames.slice() };
    });
    await page.evaluate(() => new Promise((done) => { let k = 0; const step = () => (++k >= 3 ? done() : requestAnimationFrame(step)); requestAnimationFrame(step); }));
    const labStats = await page.evaluate(() => window.crowd.stats());
    const labStatus = await page.evaluate(() => window.crowd.status());
    await page.screenshot({ path: path.join(shots, 'demo-critter-lab.png') });
    console.log(`demo page, critter lab: ${lab.kinds} kinds; baked ${lab.made.name} -> asset ${lab.asset}; ` +
      `${labStats.submitted} submitted`);
    check(lab.kinds >= 40 && lab.made.ok && lab.asset === lab.made.index && lab.names[lab.asset] === `${lab.kind}-424242.crowd`,
      `critter lab: ${JSON.stringify(lab)}`);
    check(labStats.submitted > 0 && labStatus.includes(`${lab.kind}-424242`), `critter lab: the crowd does not show it: ${labStatus.split('\n')[0]}`);
    await page.evaluate(() => window.crowd.set('asset', window.crowd.assetNames.length)); // the menagerie
    const second = await page.evaluate(() => window.crowd.critterLab.bakeKind(window.crowd.critterLab.kinds[0].name, 7));
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const menagerie = await page.evaluate(() => window.crowd.details());
    check(second.ok && menagerie.includes(`${lab.kind}-424242`) && menagerie.includes(second.name.replace('.crowd', '')),
      `critter lab: the menagerie does not mix the baked kinds: ${menagerie}`);
    check(!errors.length, `demo page: console errors: ${errors.join(' | ')}`);
    await page.close();
  }
} finally {
  await browser.close();
  server.stop();
}
console.log(failures.length ? `module-test: ${failures.length} failure(s)` : 'module-test: ok');
process.exit(failures.length ? 1 : 0);
