// HTTP benchmark, printed side by side from one run: requests/s of an authenticated, validated GET
// through the kernel vs the same handler on bare Koa + @koa/router; then cold start and idle RSS of
// the real server. Not a test: it asserts nothing and `npm test` never runs it.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { measureColdStart } from './cold-start.ts';
import { BENCH_PATH, BENCH_QUERY, startBare, startKernel, type Target } from './servers.ts';

const TOKEN = 'bench-token-0123456789abcdef';
const CONNECTIONS = 50;
const ROUND_S = 5;
const ROUNDS = 3;
const WARMUP_S = 2;
const COLD_RUNS = 5;
const IDLE_MS = 3000;
const TARGET_RATIO = 0.85;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

/**
 * One autocannon run; the load generator gets its own worker thread so it does not share the event
 * loop with the server under test. Only 2xx responses count.
 */
async function requestsPerSecond(target: Target, seconds: number): Promise<{ rps: number; p99: number; failures: number }> {
  const result = await autocannon({
    url: target.url + BENCH_PATH + BENCH_QUERY, connections: CONNECTIONS, duration: seconds, workers: 1,
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return { rps: result['2xx'] / result.duration, p99: result.latency.p99, failures: result.non2xx + result.errors };
}

/** Both sides must answer the same body, and the kernel must refuse a request without the token. */
async function preflight(kernel: Target, bare: Target): Promise<void> {
  const get = (target: Target, headers: Record<string, string>) => fetch(target.url + BENCH_PATH + BENCH_QUERY, { headers });
  const auth = { authorization: `Bearer ${TOKEN}` };
  const [k, b] = await Promise.all([get(kernel, auth).then((r) => r.text()), get(bare, auth).then((r) => r.text())]);
  if (k !== b) throw new Error(`The two servers answer differently:\n kernel ${k}\n bare   ${b}`);
  const anonymous = (await get(kernel, {})).status;
  if (anonymous !== 401) throw new Error(`The kernel answered ${anonymous} without a token; the bench would not measure auth`);
}

const stateDir = mkdtempSync(join(tmpdir(), 'svc-bench-http-'));
const kernel = await startKernel(TOKEN, stateDir);
const bare = await startBare();
const sides = { kernel, bare };
const rounds: Record<keyof typeof sides, { rps: number; p99: number; failures: number }[]> = { kernel: [], bare: [] };
const loadBefore = load();
try {
  await preflight(kernel, bare);
  console.log(`GET ${BENCH_PATH}${BENCH_QUERY}  Bearer token, query {limit: integer, offset: integer = 0}`);
  console.log(`node ${process.version}, ${availableParallelism()} cores, load ${loadBefore}; ${CONNECTIONS} connections, ${WARMUP_S} s warm-up, ${ROUNDS} alternating rounds of ${ROUND_S} s\n`);
  for (const target of Object.values(sides)) await requestsPerSecond(target, WARMUP_S);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, target] of Object.entries(sides) as [keyof typeof sides, Target][]) rounds[name].push(await requestsPerSecond(target, ROUND_S));
  }
} finally {
  await kernel.close();
  await bare.close();
  rmSync(stateDir, { recursive: true, force: true });
}

const medians = { kernel: median(rounds.kernel.map((r) => r.rps)), bare: median(rounds.bare.map((r) => r.rps)) };
const ratio = medians.kernel / medians.bare;
console.log('side     ' + rounds.kernel.map((_, i) => `round ${i + 1}`.padStart(10)).join('') + '    median req/s   p99 ms   non-2xx');
for (const name of ['kernel', 'bare'] as const) {
  const cells = rounds[name].map((r) => r.rps.toFixed(0).padStart(10)).join('');
  const failures = rounds[name].reduce((sum, r) => sum + r.failures, 0);
  console.log(`${name.padEnd(9)}${cells}${medians[name].toFixed(0).padStart(16)}${median(rounds[name].map((r) => r.p99)).toFixed(0).padStart(9)}${String(failures).padStart(10)}`);
}
console.log(`ratio kernel/bare: ${ratio.toFixed(3)} (target ≥ ${TARGET_RATIO})\n`);

const cold = await measureColdStart(COLD_RUNS, IDLE_MS);
console.log(`cold start to ready, bin/svc.ts (spawn → "URL:" line): ${cold.runsMs.map((ms) => ms.toFixed(0)).join(', ')} ms; median ${median(cold.runsMs).toFixed(0)} ms`);
console.log(`idle RSS ${IDLE_MS / 1000} s after ready: ${cold.idleRssMb.toFixed(1)} MB`);
console.log(`load average before/after: ${loadBefore} / ${load()}\n`);
console.log(`SUMMARY kernel ${medians.kernel.toFixed(0)} req/s, bare ${medians.bare.toFixed(0)} req/s, ratio ${ratio.toFixed(2)} (${ratio >= TARGET_RATIO ? 'meets' : 'below'} ${TARGET_RATIO}), cold start ${median(cold.runsMs).toFixed(0)} ms, idle RSS ${cold.idleRssMb.toFixed(0)} MB`);
