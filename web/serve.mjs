// A plain static server for dist/ on 127.0.0.1: no redirects, no rewriting, correct types. Used by
// `make serve` and the browser tests. Usage: node web/serve.mjs <dir> [port] [--prefix /demo/] [--isolate]
// Hostile requests get a status, never a crash or a file outside <dir>: a malformed percent-escape
// is 400, a NUL byte or a path that leaves the folder (encoded `..` included) 403, anything but GET
// or HEAD 405 (web/serve-test.mjs sends each).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] || 'dist');
const port = Number(process.argv[3] || 8080);
const prefixIndex = process.argv.indexOf('--prefix');
const prefix = prefixIndex > 0 ? process.argv[prefixIndex + 1] : '/';
// --isolate: cross-origin isolation headers, under which browsers give performance.now() a 5 us
// resolution instead of 100 us (the benchmarks' timers)
const isolate = process.argv.includes('--isolate')
  ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
                '.json': 'application/json', '.css': 'text/css', '.crowd': 'application/octet-stream',
                '.png': 'image/png', '.glb': 'model/gltf-binary', '.gltf': 'model/gltf+json', '.ts': 'text/plain',
                '.md': 'text/plain' };

// The file a request names, or an HTTP status saying why there is none.
function resolveRequest(request) {
  if (request.method !== 'GET' && request.method !== 'HEAD') return { status: 405 };
  let url;
  try {
    url = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
  } catch {
    return { status: 400 };
  }
  if (url.includes('\0')) return { status: 403 };
  // /demo (no slash) gets the index, like hosts that serve a directory without redirecting: a page
  // with relative paths then breaks, one built with an absolute base does not
  if (url + '/' === prefix) url = prefix;
  if (!url.startsWith(prefix)) return { status: 404 };
  let file = path.resolve(root, '.' + path.sep + url.slice(prefix.length));
  // a sibling whose name starts with the root's ("dist" and "distX") is outside it too
  if (file !== root && !file.startsWith(root + path.sep)) return { status: 403 };
  if (url.endsWith('/')) file = path.join(file, 'index.html');
  return { file };
}

const server = http.createServer((request, response) => {
  const { status, file } = resolveRequest(request);
  const refuse = (code) => {
    response.writeHead(code, { 'Content-Type': 'text/plain' });
    response.end(http.STATUS_CODES[code].toLowerCase());
  };
  if (status) return refuse(status);
  fs.readFile(file, (error, data) => {
    if (error) return refuse(404);
    response.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream', ...isolate });
    response.end(request.method === 'HEAD' ? undefined : data);
  });
});
server.on('clientError', (error, socket) => {
  if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
});
server.listen(port, '127.0.0.1', () => {
  console.log(`serving ${root} at http://127.0.0.1:${server.address().port}${prefix}`);
});
