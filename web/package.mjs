// Assembles the npm package (dist/pkg/) and the three.js example (dist/examples/web/) from the wasm
// build and web/module/. `npm pack dist/pkg` makes the tarball; the example reads the package and the
// demo's assets from beside it, and three.js from a vendor/ copy of this repository's dev dependency.
//   node web/package.mjs --web build-web --out dist
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const webBuild = option('--web', 'build-web');
const out = option('--out', 'dist');
const here = path.dirname(new URL(import.meta.url).pathname);
const top = path.join(here, '..');
const module = path.join(here, 'module');
const version = /project\(crowdbake VERSION ([0-9.]+)/.exec(fs.readFileSync(path.join(top, 'CMakeLists.txt'), 'utf8'));

const pkg = path.join(out, 'pkg');
fs.rmSync(pkg, { recursive: true, force: true });
fs.mkdirSync(pkg, { recursive: true });
const copy = (from, to) => fs.copyFileSync(from, path.join(pkg, to ?? path.basename(from)));
for (const file of ['crowdbake-wasm.mjs', 'crowdbake-wasm.wasm', 'crowdbake-bake.mjs', 'crowdbake-bake.wasm'])
  copy(path.join(webBuild, file));
for (const file of ['crowdbake.mjs', 'crowdbake.d.ts', 'three.mjs', 'three.d.ts', 'crowdbake-wasm.d.ts', 'bake-worker.mjs',
  'LICENSE.md'])
  copy(path.join(module, file));
copy(path.join(module, 'PACKAGE.md'), 'README.md');
const threeVersion = JSON.parse(fs.readFileSync(path.join(top, 'node_modules', 'three', 'package.json'), 'utf8')).version;
fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({
  name: 'crowdbake',
  version: version ? version[1] : '0.0.0',
  description: 'Baked crowds for WebGL2: tens of thousands of animated characters, culled, LOD-ed and drawn from C compiled to wasm',
  type: 'module',
  main: './crowdbake.mjs',
  types: './crowdbake.d.ts',
  exports: {
    '.': { types: './crowdbake.d.ts', default: './crowdbake.mjs' },
    './three': { types: './three.d.ts', default: './three.mjs' },
    './crowdbake-wasm.wasm': './crowdbake-wasm.wasm',
    './crowdbake-bake.wasm': './crowdbake-bake.wasm',
    './bake-worker.mjs': './bake-worker.mjs',
  },
  files: ['crowdbake.mjs', 'crowdbake.d.ts', 'crowdbake-wasm.mjs', 'crowdbake-wasm.d.ts', 'crowdbake-wasm.wasm',
    'crowdbake-bake.mjs', 'crowdbake-bake.wasm', 'bake-worker.mjs', 'three.mjs', 'three.d.ts', 'README.md', 'LICENSE.md'],
  sideEffects: false,
  peerDependencies: { three: `>=${threeVersion}` },
  peerDependenciesMeta: { three: { optional: true } },
  license: 'SEE LICENSE IN LICENSE.md',
}, null, 2) + '\n');

// The example: its page, three.js and OrbitControls, beside the package and the demo's assets.
const example = path.join(out, 'examples', 'web');
fs.rmSync(example, { recursive: true, force: true });
fs.mkdirSync(path.join(example, 'vendor', 'addons', 'controls'), { recursive: true });
for (const file of ['index.html', 'main.mjs']) fs.copyFileSync(path.join(top, 'examples', 'web', file), path.join(example, file));
const three = path.join(top, 'node_modules', 'three');
fs.copyFileSync(path.join(three, 'build', 'three.module.js'), path.join(example, 'vendor', 'three.module.js'));
fs.copyFileSync(path.join(three, 'examples', 'jsm', 'controls', 'OrbitControls.js'),
  path.join(example, 'vendor', 'addons', 'controls', 'OrbitControls.js'));
fs.copyFileSync(path.join(three, 'LICENSE'), path.join(example, 'vendor', 'three-LICENSE'));

const kb = (n) => (n / 1024).toFixed(1) + ' KB';
const report = fs.readdirSync(pkg).sort().map((file) => {
  const bytes = fs.readFileSync(path.join(pkg, file));
  return `${kb(bytes.length).padStart(10)} raw ${kb(zlib.gzipSync(bytes, { level: 9 }).length).padStart(10)} gzip  ${file}`;
});
console.log(`${pkg}/ (npm pack-able), ${example}/\n` + report.join('\n'));
