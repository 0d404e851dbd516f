// "Your character" on the demo page: a .glb (or a .gltf with its files) picked or dropped on the page
// is baked in a Web Worker by the JavaScript package's bake() (the same C baker as crowd-bake), with a
// progress bar; the result joins the asset menu and the crowd shows it, what the bake decided is said
// in plain words, and the .crowd can be downloaded. A refused file shows the baker's reason and the
// page goes on. Loaded by main.js once the demo runs: attachBakePanel(api, gui, base).
import { bake, prepareBake } from './pkg/crowdbake.mjs';

const css = `
#bake-box { position: fixed; left: 12px; bottom: 12px; max-width: 440px; padding: 10px 12px; border-radius: 6px;
  background: #102030e8; color: #eef; font: 13px/1.45 system-ui, sans-serif; display: none; }
#bake-box progress { width: 100%; }
#bake-box .reason { color: #ffb4a8; }
#bake-box a { color: #9cf; }
#bake-drop { position: fixed; inset: 0; display: none; align-items: center; justify-content: center;
  background: #0368; color: #fff; font: 28px system-ui, sans-serif; pointer-events: none; }`;

const metres = (v) => `${v < 1 ? v.toFixed(3) : v.toFixed(2)} m`;
const megabytes = (n) => `${(n / 1048576).toFixed(1)} MB`;

// What the bake decided, as a sentence a newcomer reads (crowd-bake's summary, without the jargon).
export function describeBake(name, summary, warnings) {
  const a = summary.asset, n = a.notes;
  const gaits = a.clips.filter((c) => c.role === 'locomotion');
  const roleWords = { locomotion: 'walks or runs', idle: 'stands', action: 'plays once', pose: 'a still pose',
    flight: 'flies', unknown: 'unknown' };
  const lines = [
    `${name}: ${summary.vertices.toLocaleString()} vertices, ${summary.triangles.toLocaleString()} triangles, ` +
      `${a.clips.length} clip${a.clips.length === 1 ? '' : 's'}, ${megabytes(summary.bytes)} baked.`,
  ];
  if (n) {
    const facing = n.forwardDecision === 'detected' ? `faces ${n.forward} in the file (found from how its feet slide)`
      : n.forwardDecision === 'given' ? `faces ${n.forward} (as asked)` : 'faces +Z, the glTF convention';
    lines.push(`It ${facing} and now faces forward; it stands ${metres(n.height)} tall` +
      (a.unitScale !== 1 ? ` (scaled by ${Number(a.unitScale.toPrecision(3))})` : '') +
      (Math.abs(n.groundOffset) > 1e-4 ? `, moved ${metres(Math.abs(n.groundOffset))} ${n.groundOffset > 0 ? 'up' : 'down'} onto the ground` : '') +
      (n.hover > 0 ? `, flying ${metres(n.hover)} above it` : '') + '.');
    if (n.scaleDecision === 'detected')
      lines.push(`Its size in metres was implausible, so the bake read the file in another unit (the note below says which).`);
  }
  lines.push('Clips: ' + a.clips.map((c) => `${c.name} (${roleWords[c.role] || c.role}` +
    (c.role === 'locomotion' && c.duration > 0 ? `, ${(c.stride / c.duration).toFixed(2)} m/s` : '') + ')').join(', ') + '.');
  if (!gaits.length) lines.push('No walking clip: the crowd stands and plays its clips in place.');
  for (const w of warnings) lines.push('Note: ' + w);
  return lines;
}

export function attachBakePanel(api, gui, statusText) {
  const style = document.createElement('style');
  style.textContent = css;
  document.head.appendChild(style);
  const box = document.createElement('div');
  box.id = 'bake-box';
  const drop = document.createElement('div');
  drop.id = 'bake-drop';
  drop.textContent = 'drop a .glb (or a .gltf with its files) to bake it';
  const input = document.createElement('input');
  input.type = 'file';
  input.multiple = true;
  input.accept = '.glb,.gltf,.bin,.png,.jpg,.jpeg';
  input.id = 'bake-input';
  input.style.display = 'none';
  document.body.append(box, drop, input);

  const options = { height: 0, bones: true };
  const folder = gui.addFolder('your character');
  folder.add({ pick: () => input.click() }, 'pick').name('bake a .glb / .gltf...');
  folder.add(options, 'height', 0, 5, 0.01).name('height, m (0: as in the file)');
  folder.add(options, 'bones').name('bone texture (hats, sockets)');

  let running = null;
  const show = (html) => { box.style.display = 'block'; box.innerHTML = html; };
  const escape = (t) => String(t).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

  async function bakeFiles(files, override = {}) {
    if (!files.length) return;
    if (running) running.abort();
    const abort = running = new AbortController();
    const main = files.find((f) => /\.(glb|gltf)$/i.test(f.name)) || files[0];
    show(`<div>baking ${escape(main.name)}...</div><progress max="1" value="0"></progress> <a href="#" id="bake-cancel">cancel</a>`);
    box.querySelector('#bake-cancel').onclick = (e) => { e.preventDefault(); abort.abort(); };
    const bar = box.querySelector('progress');
    try {
      const { bytes, summary, warnings } = await bake({ files }, {
        bones: options.bones, height: options.height || undefined, signal: abort.signal, ...override,
      }, (fraction) => { bar.value = fraction; });
      const name = main.name.replace(/\.(glb|gltf)$/i, '') + '.crowd';
      const index = api.addAsset(bytes, name);
      if (index < 0) throw new Error(api.addError());
      api.set('asset', index);
      const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
      // the bake read the file in another unit (a centimetre export, the usual case): offer the undo
      const rescaled = summary.asset.notes && summary.asset.notes.scaleDecision === 'detected';
      show(describeBake(main.name, summary, warnings).map((l) => `<div>${escape(l)}</div>`).join('') +
        (rescaled ? '<div><a href="#" id="bake-as-is">bake it again at the file\'s own size (scale 1)</a></div>' : '') +
        `<div><a download="${escape(name)}" href="${url}">download ${escape(name)}</a> · <a href="#" id="bake-close">close</a></div>`);
      box.querySelector('#bake-close').onclick = (e) => { e.preventDefault(); box.style.display = 'none'; };
      if (rescaled)
        box.querySelector('#bake-as-is').onclick = (e) => { e.preventDefault(); bakeFiles(files, { scale: 1 }); };
      window.lastBake = { name, index, summary, warnings, ok: true };
    } catch (error) {
      const reason = error.name === 'AbortError' ? 'cancelled' : error.message;
      show(`<div>${escape(main.name)} was not baked:</div><div class="reason">${escape(reason)}</div>` +
        `<div><a href="#" id="bake-close">close</a></div>`);
      box.querySelector('#bake-close').onclick = (e) => { e.preventDefault(); box.style.display = 'none'; };
      window.lastBake = { name: main.name, ok: false, reason };
    } finally {
      if (running === abort) running = null;
    }
  }

  // a line of plain text in the box (the critter lab's progress and result)
  const say = (text) => {
    show(`<div>${escape(text)}</div><div><a href="#" id="bake-close">close</a></div>`);
    box.querySelector('#bake-close').onclick = (e) => { e.preventDefault(); box.style.display = 'none'; };
  };

  input.addEventListener('change', () => { bakeFiles(Array.from(input.files)); input.value = ''; });
  addEventListener('dragover', (e) => { e.preventDefault(); drop.style.display = 'flex'; });
  addEventListener('dragleave', () => { drop.style.display = 'none'; });
  addEventListener('drop', (e) => {
    e.preventDefault();
    drop.style.display = 'none';
    bakeFiles(Array.from(e.dataTransfer.files));
  });
  prepareBake().catch(() => {}); // compile the baker's wasm while the visitor looks around
  return { bakeFiles, options, say };
}
