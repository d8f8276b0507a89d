// VFS benchmark, measured side by side in one run and printed as ratios against in-run baselines:
// (a) compile + load of a small plugin vs loading the equivalent native plugin; (b) latency of a VFS
// plugin route vs the equivalent native route in the same kernel, interleaved (also for a plugin whose
// calls must run on the isolate's thread), with the isolate round trip measured on its own; (c) a snapshot of a 1 000-file project with one
// changed file vs writing that file. Not a test: `npm test` never runs it.
import { Agent, request } from 'node:http';
import ivm from 'isolated-vm';
import { availableParallelism, loadavg } from 'node:os';
import vfs from '../plugins/vfs/index.ts';
import vfsPlugins from '../plugins/vfs-plugins/index.ts';
import sandbox from '../sandbox/index.ts';
import { coreSandbox, definePlugin, Type, vfsProjects, type SandboxModule } from '../sdk/index.ts';
import { createTestKernel } from '../sdk/testing.ts';

const TOKEN = 'bench-vfs-token-0123456789';
const LOADS = 20;
const REQUESTS = 3000;
const WARMUP = 300;
const FILES = 1000;
const SNAPSHOTS = 20;

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;
const median = (values: number[]) => quantile(values, 0.5);
const ms = (value: number) => value.toFixed(3).padStart(9);
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const Sum = Type.Object({ a: Type.Number(), b: Type.Number() });
const native = (version = '1.0.0') => definePlugin({
  id: 'native-sum', version,
  setup(ctx) { ctx.route({ method: 'POST', path: '/api/native/sum', schema: { body: Sum }, handler: ({ body }) => ({ sum: body.a + body.b }) }); },
});
/** The guest plugin; with `capabilities` (fetch) its calls run on the isolate's thread instead of starting on the host's. */
const guestFiles = (id: string, capabilities: string[] = []) => ({
  'src/index.ts': `import { definePlugin, Type } from '@svc/sdk';
import { add } from './add.ts';
export default definePlugin({ id: '${id}', version: '1.0.0', capabilities: ${JSON.stringify(capabilities)}, setup(ctx) {
  ctx.route({ method: 'POST', path: '/sum', schema: { body: Type.Object({ a: Type.Number(), b: Type.Number() }) }, handler: ({ body }) => ({ sum: add(body.a, body.b) }) });
} });`,
  'src/add.ts': 'export const add = (a: number, b: number): number => a + b;',
});
const GUEST = guestFiles('sum');
const GUEST_FETCH = guestFiles('sum-fetch', ['fetch']);

const t = await createTestKernel({ plugins: [sandbox, vfs, vfsPlugins, native()], auth: { token: TOKEN } });
const base = await t.url();
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** One request over the kept-alive socket; resolves with the status and body text. */
function send(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
async function ok(method: string, path: string, body?: unknown): Promise<string> {
  const { status, text } = await send(method, path, body);
  if (status >= 300) throw new Error(`${method} ${path} → ${status}: ${text}`);
  return text;
}

const loadBefore = load();
try {
  const box = t.kernel.resolve(coreSandbox)!;
  const projects = t.kernel.resolve(vfsProjects)!;
  await ok('POST', '/api/workbench/vfs/projects', { projectId: 'bench' });
  for (const [path, content] of Object.entries(GUEST)) await ok('PUT', '/api/workbench/vfs/projects/bench/file', { path, content, encoding: 'utf-8' });
  await ok('POST', '/api/workbench/vfs/projects', { projectId: 'bench-fetch' });
  for (const [path, content] of Object.entries(GUEST_FETCH)) await ok('PUT', '/api/workbench/vfs/projects/bench-fetch/file', { path, content, encoding: 'utf-8' });
  await ok('POST', '/api/workbench/vfs/projects/bench-fetch/load-plugin', { entry: 'src/index.ts', compileFirst: true });
  console.log(`node ${process.version}, ${availableParallelism()} cores, load ${loadBefore}\n`);

  // (a) compile + load
  const read = async (path: string) => (path in GUEST ? projects.read('bench', path) : undefined);
  const samples = { compile: [] as number[], loadModule: [] as number[], http: [] as number[], native: [] as number[] };
  await ok('POST', '/api/workbench/vfs/projects/bench/load-plugin', { entry: 'src/index.ts', compileFirst: true }); // builds the guest SDK once
  for (let i = 0; i < LOADS; i++) {
    let code = '';
    samples.compile.push(await timed(async () => { code = (await box.compile({ entry: 'src/index.ts', read })).code; }));
    let module: SandboxModule | undefined;
    samples.loadModule.push(await timed(async () => { module = await box.loadModule({ code }); }));
    module!.dispose();
    samples.http.push(await timed(() => ok('POST', '/api/workbench/vfs/projects/bench/load-plugin', { entry: 'src/index.ts', compileFirst: true })));
    samples.native.push(await timed(() => t.kernel.reload('native-sum', native(`1.0.${i}`))));
  }
  const nativeLoad = median(samples.native);
  console.log(`(a) compile + load of a 2-file plugin, median of ${LOADS}`);
  console.log(`    sandbox compile       ${ms(median(samples.compile))} ms`);
  console.log(`    sandbox loadModule    ${ms(median(samples.loadModule))} ms   (isolate, guest SDK from cached code, evaluation, setup)`);
  console.log(`    HTTP load-plugin      ${ms(median(samples.http))} ms   (compile, write to the VFS, load, kernel reload)  ${(median(samples.http) / nativeLoad).toFixed(1)}× a native plugin reload (${ms(nativeLoad).trim()} ms)\n`);

  // (b) route latency, interleaved
  const bodyFor = (i: number) => ({ a: i, b: 2 });
  if (await ok('POST', '/api/native/sum', bodyFor(1)) !== await ok('POST', '/api/vfs-plugins/sum/sum', bodyFor(1))) throw new Error('The two routes answer differently');
  const latency = { native: [] as number[], vfs: [] as number[], vfsThread: [] as number[] };
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const sides = [['native', '/api/native/sum'], ['vfs', '/api/vfs-plugins/sum/sum'], ['vfsThread', '/api/vfs-plugins/sum-fetch/sum']] as const;
    for (const [side, path] of i % 2 ? sides : [...sides].reverse()) {
      const took = await timed(() => ok('POST', path, bodyFor(i)));
      if (i >= WARMUP) latency[side].push(took);
    }
  }
  // Where the time goes: the module call without HTTP, and the bare isolated-vm hop to another thread it rests on.
  const module = await box.loadModule({ code: (await box.compile({ entry: 'src/index.ts', read })).code });
  const readFetch = async (path: string) => (path in GUEST_FETCH ? projects.read('bench-fetch', path) : undefined);
  const threaded = await box.loadModule({ code: (await box.compile({ entry: 'src/index.ts', read: readFetch })).code });
  const bare = new ivm.Isolate({ memoryLimit: 16 });
  const noop = await (await bare.createContext()).eval('(async (s) => s)', { reference: true });
  const direct = { call: [] as number[], threaded: [] as number[], hop: [] as number[], local: [] as number[] };
  const add = async (input: { body: { a: number; b: number } }) => ({ status: 200, body: { sum: input.body.a + input.body.b } });
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const input = { method: 'POST', path: '/sum', params: {}, query: {}, body: bodyFor(i) };
    const call = await timed(() => module.call('route:0', input));
    const onThread = await timed(() => threaded.call('route:0', input));
    const hop = await timed(() => noop.apply(undefined, ['x'], { arguments: { copy: true }, result: { promise: true, copy: true } }));
    const local = await timed(() => add(input));
    if (i >= WARMUP) { direct.call.push(call); direct.threaded.push(onThread); direct.hop.push(hop); direct.local.push(local); }
  }
  module.dispose();
  threaded.dispose();
  bare.dispose();
  const [n, v] = [median(latency.native), median(latency.vfs)];
  const ratio = v / n;
  console.log(`(b) POST with a validated JSON body, one kept-alive connection, ${REQUESTS} interleaved requests per side`);
  console.log('    side              median ms    p99 ms');
  console.log(`    native route      ${ms(n)} ${ms(quantile(latency.native, 0.99))}`);
  console.log(`    VFS plugin route  ${ms(v)} ${ms(quantile(latency.vfs, 0.99))}   (no result-bearing capability: the call starts on the host's thread)`);
  console.log(`    VFS, fetch declared ${ms(median(latency.vfsThread)).slice(2)} ${ms(quantile(latency.vfsThread, 0.99))}   (every call on the isolate's thread)  ${(median(latency.vfsThread) / n).toFixed(2)}× native`);
  console.log(`    where it goes: module.call alone (no HTTP) ${ms(median(direct.call)).trim()} ms on the host's thread, ${ms(median(direct.threaded)).trim()} ms on the isolate's; a bare isolated-vm async apply (one hop to the isolate's thread and back) ${ms(median(direct.hop)).trim()} ms; the handler in-process ${ms(median(direct.local)).trim()} ms`);
  console.log(`    VFS / native = ${ratio.toFixed(2)}× (target ≤ 1.5×: ${ratio <= 1.5 ? 'met' : `missed by ${((ratio - 1.5) * n).toFixed(3)} ms per request`})\n`);

  // (c) snapshot of a 1 000-file project with one changed file vs writing that file
  await ok('POST', '/api/workbench/vfs/projects', { projectId: 'big' });
  for (let i = 0; i < FILES; i++) await projects.write('big', `src/file-${i}.ts`, Buffer.from(`export const value${i} = ${i};\n`));
  await ok('POST', '/api/workbench/vfs/projects/big/snapshots', { note: 'baseline' });
  const snap = { write: [] as number[], snapshot: [] as number[] };
  for (let i = 0; i < SNAPSHOTS; i++) {
    snap.write.push(await timed(() => ok('PUT', '/api/workbench/vfs/projects/big/file', { path: 'src/file-0.ts', content: `export const value0 = ${i};\n`, encoding: 'utf-8' })));
    snap.snapshot.push(await timed(() => ok('POST', '/api/workbench/vfs/projects/big/snapshots', { note: `after change ${i}` })));
  }
  const [w, s] = [median(snap.write), median(snap.snapshot)];
  console.log(`(c) ${FILES}-file project, one file changed, median of ${SNAPSHOTS}`);
  console.log(`    write that file (PUT)   ${ms(w)} ms`);
  console.log(`    snapshot (POST)         ${ms(s)} ms   ${(s / w).toFixed(1)}× the write`);
  console.log(`\nload average before/after: ${loadBefore} / ${load()}`);
  console.log(`SUMMARY compile+load ${median(samples.http).toFixed(1)} ms (${(median(samples.http) / nativeLoad).toFixed(1)}× native reload); route latency VFS/native ${ratio.toFixed(2)}× (${ratio <= 1.5 ? 'meets' : 'misses'} ≤ 1.5×); snapshot/write ${(s / w).toFixed(1)}× at ${FILES} files`);
} finally {
  agent.destroy();
  await t.close();
}
