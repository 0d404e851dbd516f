// What the browser tests and benchmarks share: the static server (serve.mjs) as a child process on a
// free port, and Debian's Chromium started headless on SwiftShader (WebGL2) with its background
// networking off (this machine's closed network refuses it).
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);

/** Serves `root` (serve.mjs's flags in `flags`: '--prefix', '/demo/', '--isolate'); resolves to { url, stop }. */
export function serve(root, ...flags) {
  return new Promise((resolve, reject) => {
    const server = spawn(process.execPath, [path.join(here, 'serve.mjs'), root, '0', ...flags]);
    server.stdout.on('data', (data) => {
      const match = /at (http:\/\/\S+)/.exec(String(data));
      if (match) resolve({ url: match[1], stop: () => server.kill() });
    });
    server.on('error', reject);
    setTimeout(() => reject(new Error('the static server did not start')), 10000);
  });
}

// WebGPU on SwiftShader's Vulkan, for a page served from 127.0.0.1 (a secure context): with
// { webgpu: true }. Without it navigator.gpu gives no device, which the fallback tests rely on.
const WEBGPU_ARGS = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader',
  '--use-webgpu-adapter=swiftshader'];

export function launchChromium({ webgpu = false } = {}) {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless=new', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
           '--ignore-gpu-blocklist', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', ...(webgpu ? WEBGPU_ARGS : [])],
  });
}
