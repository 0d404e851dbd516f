// Assembles the deployable web demo.
//   node web/build.mjs --web build-web --out dist --assets a.crowd,b.crowd [--base /demo/]
//   node web/build.mjs --web build-web --out dist-single --assets ... --single
// dist/ is the whole site: index.html, main.js, lil-gui, the wasm module and assets/. With
// --single, one HTML file holds everything (wasm inside the JS, assets as base64) and runs from
// file://. Prints every file's size, and the assets' gzip and brotli sizes: brotli at quality 11, as
// a site precompresses. Quality 11 is slow on assets of several megabytes: --no-compressed-sizes
// skips the compressed sizes, as make test-web's builds do.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const webBuild = option('--web', 'build-web');
const out = option('--out', 'dist');
const base = option('--base', '');
const single = process.argv.includes('--single');
const compressedSizes = !process.argv.includes('--no-compressed-sizes');
const assets = option('--assets', '').split(',').filter(Boolean);
const here = path.dirname(new URL(import.meta.url).pathname);
const lilGui = path.join(here, '..', 'node_modules', 'lil-gui', 'dist', 'lil-gui.umd.min.js');

if (!assets.length) throw new Error('no assets (--assets a.crowd,b.crowd)');
if (base && !(base.startsWith('/') && base.endsWith('/'))) throw new Error('--base must look like /demo/');
for (const file of [lilGui, ...assets]) if (!fs.existsSync(file)) throw new Error(file + ' is missing');

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
// With an absolute base every URL the page names starts with it, so /demo works without the slash.
const html = fs.readFileSync(path.join(here, 'index.html'), 'utf8')
  .replace('<meta name="crowd-base" content="">', `<meta name="crowd-base" content="${base}">`)
  .replace(/<script src="([^"]+)"><\/script>/g, (_, src) => `<script src="${base}${src}"></script>`);
const kb = (n) => (n / 1024).toFixed(1).padStart(9) + ' KB';
const report = [];

if (!single) {
  fs.writeFileSync(path.join(out, 'index.html'), html);
  fs.copyFileSync(path.join(here, 'main.js'), path.join(out, 'main.js'));
  for (const file of ['bake-panel.mjs', 'critter-lab.mjs']) fs.copyFileSync(path.join(here, file), path.join(out, file));
  fs.copyFileSync(lilGui, path.join(out, 'lil-gui.umd.min.js'));
  for (const file of ['crowd-demo.js', 'crowd-demo.wasm'])
    fs.copyFileSync(path.join(webBuild, file), path.join(out, file));
  fs.mkdirSync(path.join(out, 'assets'));
  const names = assets.map((file) => path.basename(file));
  assets.forEach((file, i) => fs.copyFileSync(file, path.join(out, 'assets', names[i])));
  fs.writeFileSync(path.join(out, 'assets', 'assets.json'), JSON.stringify(names) + '\n');
} else {
  const inline = (code) => code.replace(/<\/script/gi, '<\\/script');
  const script = (file) => `<script>${inline(fs.readFileSync(file, 'utf8'))}</script>`;
  const embedded = assets.map((file) => `<script type="application/x-crowd-asset" data-name="${path.basename(file)}">` +
                                        fs.readFileSync(file).toString('base64') + '</script>').join('\n');
  const page = html
    .replace(`<script src="${base}lil-gui.umd.min.js"></script>`, () => embedded + '\n' + script(lilGui))
    .replace(`<script src="${base}crowd-demo.js"></script>`, () => script(path.join(webBuild, 'crowd-demo-single.js')))
    .replace(`<script src="${base}main.js"></script>`, () => script(path.join(here, 'main.js')));
  fs.writeFileSync(path.join(out, 'index.html'), page);
  fs.writeFileSync(path.join(out, 'crowdbake.html'), page); // a name that survives sitting beside a site
}

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]);
}
let total = 0;
for (const file of walk(out).sort()) {
  const size = fs.statSync(file).size;
  total += size;
  report.push(`${kb(size)}  ${path.relative(out, file)}`);
}
report.push(`${kb(total)}  in all`);
for (const file of compressedSizes ? assets : []) {
  const bytes = fs.readFileSync(file);
  const gzip = zlib.gzipSync(bytes, { level: 9 }).length;
  const brotli = zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  report.push(`asset ${path.basename(file)}: ${kb(bytes.length).trim()} raw, ${kb(gzip).trim()} gzip ` +
              `(${(100 * gzip / bytes.length).toFixed(0)}%), ${kb(brotli).trim()} brotli (${(100 * brotli / bytes.length).toFixed(0)}%)`);
}
console.log(`${out}/${base ? ` (absolute base ${base})` : ' (relative paths)'}\n` + report.join('\n'));
