// The critter lab on the demo page: pick one of the baker's procedural critter kinds and a seed (the
// seed picks its look: proportions, colours, cadence), bake it in the page's worker (the JavaScript
// package's bake(), the same C capture as crowd-bake --critter), and it joins the asset menu; "the
// menagerie" then mixes every kind loaded, baked ones included. No server: everything runs here.
// Loaded by main.js beside the bake panel: attachCritterLab(api, gui, say), say(text) shows a line in
// the bake panel's box.
import { bake, critterKinds } from './pkg/crowdbake.mjs';

const randomSeed = () => Math.floor(Math.random() * 1e6);

export async function attachCritterLab(api, gui, say) {
  const kinds = await critterKinds();
  const folder = gui.addFolder('critter lab');
  const state = { kind: kinds[0].name, seed: 1 };
  const kindOf = (name) => kinds.find((k) => k.name === name);
  folder.add(state, 'kind', kinds.map((k) => k.name)).name(`kind (${kinds.length})`);
  const seedControl = folder.add(state, 'seed', 0, 999999, 1).name('seed (the look)');
  folder.add({ go: () => bakeKind(state.kind, state.seed) }, 'go').name('bake this kind');
  folder.add({ go: () => { state.seed = randomSeed(); seedControl.updateDisplay(); bakeKind(state.kind, state.seed); } }, 'go')
    .name('new seed, bake');
  folder.add({ go: () => api.set('asset', api.assetNames.length) }, 'go').name('show the menagerie');

  let running = null;
  // Bakes `kind` with `seed`; the result becomes the crowd's asset, or joins the menagerie if that is
  // what the crowd shows. Resolves to window.lastCritter: { ok, name, index } or { ok: false, reason }.
  async function bakeKind(kind, seed) {
    if (running) running.abort();
    const abort = running = new AbortController();
    const name = `${kind}-${seed}.crowd`;
    say(`baking the critter ${name}... (${kindOf(kind) ? kindOf(kind).summary : 'unknown kind'})`);
    const inMenagerie = api.get('asset') === api.assetNames.length;
    try {
      const { bytes, summary } = await bake({ critter: kind, seed }, { signal: abort.signal });
      const index = api.addAsset(bytes, name);
      if (index < 0) throw new Error(api.addError());
      api.set('asset', inMenagerie ? api.assetNames.length : index);
      const clips = summary.asset.clips.map((c) => c.name).join(', ');
      say(`${name}: ${summary.vertices.toLocaleString()} vertices, clips ${clips}, ` +
        `${(summary.bytes / 1048576).toFixed(1)} MB, ${summary.asset.notes ? summary.asset.notes.height.toFixed(2) + ' m tall' : ''}` +
        (inMenagerie ? ' — it joined the menagerie.' : '. "show the menagerie" mixes every kind loaded.'));
      window.lastCritter = { ok: true, name, index, kind, seed };
    } catch (error) {
      const reason = error.name === 'AbortError' ? 'cancelled' : error.message;
      say(`${name} was not baked: ${reason}`);
      window.lastCritter = { ok: false, name, reason };
    } finally {
      if (running === abort) running = null;
    }
    return window.lastCritter;
  }
  return { kinds, bakeKind };
}
