// Hot reload from disk: importPlugin bundles the file as it is now (esbuild → content-hashed .mjs) and
// swaps the running plugin for it; storage survives because it belongs to the plugin id, not the code.
//
//   node --no-node-snapshot --import tsx examples/notes-plugin/hot-reload.ts          scripted demo
//   node --no-node-snapshot --import tsx examples/notes-plugin/hot-reload.ts --watch  edit the real files
import { watch } from 'node:fs';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createKernel, type Kernel } from '../../kernel/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pluginDir = join(root, 'examples/notes-plugin');

export interface ScratchCopy { dir: string; entry: string; remove(): Promise<void> }

/** A copy of this plugin in a temp dir, safe to edit; a symlinked `sdk/` keeps `../../sdk` resolving. */
export async function scratchCopy(): Promise<ScratchCopy> {
  const base = await mkdtemp(join(tmpdir(), 'svc-notes-'));
  const dir = join(base, 'examples/notes-plugin');
  await cp(pluginDir, dir, { recursive: true });
  await symlink(join(root, 'sdk'), join(base, 'sdk'), 'dir');
  return { dir, entry: join(dir, 'index.ts'), remove: () => rm(base, { recursive: true, force: true }) };
}

/** Replaces text in a file; throws when the text is absent, since an edit that changes nothing proves nothing. */
export async function edit(file: string, from: string, to: string): Promise<void> {
  const source = await readFile(file, 'utf8');
  if (!source.includes(from)) throw new Error(`${file} does not contain ${JSON.stringify(from)}`);
  await writeFile(file, source.replace(from, to));
}

async function startKernel(stateDir: string, port?: number): Promise<{ kernel: Kernel; url: string }> {
  const kernel = createKernel({ stateDir, log: { level: 'warn' } });
  await kernel.start();
  return { kernel, url: (await kernel.listen({ port })).url };
}

const getJson = async (url: string) => (await fetch(url)).json();

/** Loads a scratch copy, creates a note, edits the version in the copy, imports again: new code, same data. */
async function demo(): Promise<void> {
  const copy = await scratchCopy();
  const stateDir = await mkdtemp(join(tmpdir(), 'svc-hot-state-'));
  const { kernel, url } = await startKernel(stateDir);
  try {
    const first = await kernel.importPlugin(copy.entry);
    await fetch(`${url}/api/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'written by 0.1.0' }) });
    console.log(`loaded   ${first.id} ${first.version}  GET /api/notes/stats → ${JSON.stringify(await getJson(`${url}/api/notes/stats`))}`);
    await edit(join(copy.dir, 'service.ts'), "NOTES_VERSION = '0.1.0'", "NOTES_VERSION = '0.2.0'");
    console.log(`edited   ${join(copy.dir, 'service.ts')}: NOTES_VERSION 0.1.0 → 0.2.0`);
    const second = await kernel.importPlugin(copy.entry);
    console.log(`reloaded ${second.id} ${second.version}  GET /api/notes/stats → ${JSON.stringify(await getJson(`${url}/api/notes/stats`))}`);
    console.log(`notes kept across the reload: ${JSON.stringify(await getJson(`${url}/api/notes`))}`);
  } finally {
    await kernel.stop();
    await copy.remove();
    await rm(stateDir, { recursive: true, force: true });
  }
}

/** Serves the real plugin files and imports them again on every change, until Ctrl-C. */
async function watchMode(): Promise<void> {
  const entry = join(pluginDir, 'index.ts');
  const { kernel, url } = await startKernel(process.env.SVC_STATE_DIR ?? await mkdtemp(join(tmpdir(), 'svc-hot-state-')), Number(process.env.PORT ?? 0));
  const load = async () => {
    try {
      const info = await kernel.importPlugin(entry);
      console.log(`${new Date().toLocaleTimeString()} ${info.id} ${info.version}: ${info.state}${info.error ? ` (${info.error})` : ''}`);
    } catch (error) {
      console.log(`Bundling failed, the previous code keeps serving: ${(error as Error).message}`);
    }
  };
  await load();
  console.log(`Serving ${url}/api/notes — edit files in ${pluginDir}; Ctrl-C stops.`);
  // Editors write a file in several steps; wait for the burst to settle before bundling once.
  let settle: NodeJS.Timeout | undefined;
  const watcher = watch(pluginDir, () => { clearTimeout(settle); settle = setTimeout(load, 150); });
  process.once('SIGINT', () => { watcher.close(); clearTimeout(settle); void kernel.stop(); });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await (process.argv.includes('--watch') ? watchMode() : demo());
}
