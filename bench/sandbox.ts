// Sandbox benchmark, measured side by side in one run: the code-handler round trip through
// `core.sandbox` (isolate → compile → run with `params` and the guarded `fetch` → result text),
// warm (an isolate prepared by the pool) and cold (isolate and context created in the call), against
// the same code as a plain in-process async function. Not a test: `npm test` never runs it.
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import sandbox from '../sandbox/index.ts';
import { coreSandbox, guestFetch, type SandboxService } from '../sdk/index.ts';
import { createTestKernel } from '../sdk/testing.ts';

const ITERATIONS = 400;
const WARMUP = 30;
/** Idle time before each measured call (not timed): the previous call's cleanup and the pool's refill finish, as between real calls. */
const PAUSE_MS = 10;
const TARGETS = { warmMs: 1, coldMs: 10 };
const CODE = 'const n = Number(params.n); return { greeting: `hello ${params.who}`, doubled: n * 2, items: [1, 2, 3].map((i) => i * n) }';
const PARAMS = { who: 'bench', n: '21' };

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

/** The baseline: the same code compiled and called in the host, result stringified the same way. */
const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (...args: unknown[]) => Promise<unknown>;
async function inProcess(): Promise<string> {
  const fn = new AsyncFunction('params', 'fetch', CODE);
  return JSON.stringify(await fn(PARAMS, guestFetch([])));
}

async function viaSandbox(box: SandboxService): Promise<string> {
  const result = await box.runCode({ code: CODE, input: { params: PARAMS }, caps: { fetch: guestFetch([]) } });
  if (!result.ok) throw new Error(`Sandbox run failed: ${result.error}`);
  return result.output;
}

const warmKernel = await createTestKernel({ plugins: [sandbox], config: { sandbox: { isolatePoolSize: 2 } } });
const coldKernel = await createTestKernel({ plugins: [sandbox], config: { sandbox: { isolatePoolSize: 0 } } });
const sides = {
  'in-process': inProcess,
  'sandbox warm': () => viaSandbox(warmKernel.kernel.resolve(coreSandbox)!),
  'sandbox cold': () => viaSandbox(coldKernel.kernel.resolve(coreSandbox)!),
};
const samples: Record<keyof typeof sides, number[]> = { 'in-process': [], 'sandbox warm': [], 'sandbox cold': [] };
const loadBefore = load();
try {
  const outputs = new Set(await Promise.all(Object.values(sides).map((side) => side())));
  if (outputs.size !== 1) throw new Error(`The sides answer differently: ${[...outputs].join(' | ')}`);
  console.log(`code handler round trip: ${CODE}`);
  console.log(`node ${process.version}, ${availableParallelism()} cores, load ${loadBefore}; ${WARMUP} warm-up + ${ITERATIONS} interleaved iterations, ${PAUSE_MS} ms idle before each call\n`);
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    for (const [name, side] of Object.entries(sides) as [keyof typeof sides, () => Promise<string>][]) {
      await sleep(PAUSE_MS);
      const started = performance.now();
      await side();
      if (i >= WARMUP) samples[name].push(performance.now() - started);
    }
  }
} finally {
  await warmKernel.close();
  await coldKernel.close();
}

const baseline = quantile(samples['in-process'], 0.5);
console.log('side            median ms     p99 ms   median / in-process');
for (const [name, values] of Object.entries(samples)) {
  const median = quantile(values, 0.5);
  console.log(`${name.padEnd(14)}${median.toFixed(3).padStart(11)}${quantile(values, 0.99).toFixed(3).padStart(11)}${(median / baseline).toFixed(0).padStart(16)}×`);
}
const warm = quantile(samples['sandbox warm'], 0.5);
const cold = quantile(samples['sandbox cold'], 0.5);
console.log(`load average before/after: ${loadBefore} / ${load()}\n`);
console.log(`SUMMARY warm median ${warm.toFixed(3)} ms (${warm <= TARGETS.warmMs ? 'meets' : 'misses'} ≤ ${TARGETS.warmMs} ms), cold median ${cold.toFixed(3)} ms (${cold <= TARGETS.coldMs ? 'meets' : 'misses'} ≤ ${TARGETS.coldMs} ms); in-process ${baseline.toFixed(4)} ms, warm/in-process ${(warm / baseline).toFixed(0)}×`);
