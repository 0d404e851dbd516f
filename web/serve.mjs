// A plain static server for dist/ on 127.0.0.1: no redirects, no rewriting, correct types. Used by
// `make serve` and the browser smoke test. Usage: node web/serve.mjs <dir> [port] [--prefix /demo/]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] || 'dist');
const port = Number(process.argv[3] || 8080);
const prefixIndex = process.argv.indexOf('--prefix');
const prefix = prefixIndex > 0 ? process.argv[prefixIndex + 1] : '/';
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json',
                '.css': 'text/css', '.crowd': 'application/octet-stream', '.png': 'image/png' };

const server = http.createServer((request, response) => {
  let url = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
  // /demo (no slash) gets the index, like hosts that serve a directory without redirecting: a page
  // with relative paths then breaks, one built with an absolute base does not
  if (url + '/' === prefix) url = prefix;
  if (!url.startsWith(prefix)) { response.writeHead(404); return response.end('not found'); }
  let file = path.join(root, url.slice(prefix.length));
  if (!file.startsWith(root)) { response.writeHead(403); return response.end('forbidden'); }
  if (url.endsWith('/')) file = path.join(file, 'index.html');
  fs.readFile(file, (error, data) => {
    if (error) { response.writeHead(404); return response.end('not found'); }
    response.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
    response.end(data);
  });
});
server.listen(port, '127.0.0.1', () => {
  console.log(`serving ${root} at http://127.0.0.1:${server.address().port}${prefix}`);
});
