// The static server against hostile requests: each gets its status, the server stays up, and no
// byte of a sibling folder (one whose name starts with the served folder's) is ever sent.
//   node web/serve-test.mjs
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const top = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-serve-'));
fs.mkdirSync(path.join(top, 'dist'));
fs.mkdirSync(path.join(top, 'distX'));
fs.writeFileSync(path.join(top, 'dist', 'index.html'), 'served page');
fs.writeFileSync(path.join(top, 'distX', 'secret.txt'), 'SECRET sibling');
fs.writeFileSync(path.join(top, 'secret.txt'), 'SECRET parent');

function start(prefix) {
  return new Promise((resolve, reject) => {
    const server = spawn(process.execPath, [path.join(here, 'serve.mjs'), path.join(top, 'dist'), '0', '--prefix', prefix]);
    server.stdout.on('data', (data) => {
      const match = /127\.0\.0\.1:(\d+)/.exec(String(data));
      if (match) resolve({ port: Number(match[1]), server });
    });
    server.on('error', reject);
    setTimeout(() => reject(new Error('the server did not start')), 10000);
  });
}

// A raw request line, so that nothing between us and the server normalises the path. The server
// closes the connection after its reply (Connection: close).
function raw(port, line) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${line}\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.on('data', (data) => { text += data; });
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
  });
}

const failures = [];
for (const prefix of ['/', '/demo/']) {
  const { port, server } = await start(prefix);
  let exited = false;
  server.on('exit', () => { exited = true; });
  const p = prefix;
  const cases = [
    [`GET ${p} HTTP/1.1`, 200],
    [`GET ${p}index.html HTTP/1.1`, 200],
    [`GET ${p}%E0%A4%A HTTP/1.1`, 400],
    [`GET ${p}%ZZ HTTP/1.1`, 400],
    [`GET ${p}..%2fdistX/secret.txt HTTP/1.1`, 403],
    [`GET ${p}..%2f..%2fsecret.txt HTTP/1.1`, 403],
    [`GET ${p}%2e%2e/distX/secret.txt HTTP/1.1`, 404], // the URL parser takes %2e%2e as ..
    [`GET ${p}..%5cdistX%5csecret.txt HTTP/1.1`, 404],
    [`GET ${p}index.html%00.png HTTP/1.1`, 403],
    [`GET ${p}missing.js HTTP/1.1`, 404],
    [`DELETE ${p}index.html HTTP/1.1`, 405],
    ['GET /../../etc/passwd HTTP/1.1', 404],
    ['GARBAGE', 400],
  ];
  for (const [line, want] of cases) {
    const reply = await raw(port, line);
    const status = Number((/^HTTP\/1\.1 (\d+)/.exec(reply) || [])[1]);
    if (status !== want) failures.push(`${prefix} "${line}": status ${status}, expected ${want}`);
    if (reply.includes('SECRET')) failures.push(`${prefix} "${line}": sent a file outside the served folder`);
  }
  if (exited) failures.push(`${prefix}: the server died`);
  const after = await raw(port, `GET ${p} HTTP/1.1`);
  if (!after.includes('served page')) failures.push(`${prefix}: the server stopped answering after the hostile requests`);
  server.kill();
}
fs.rmSync(top, { recursive: true, force: true });
for (const failure of failures) console.log('FAIL ' + failure);
console.log(failures.length ? `serve-test: ${failures.length} failure(s)` : 'serve-test: every hostile request refused, server up');
process.exit(failures.length ? 1 : 0);
