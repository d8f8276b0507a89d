// Chat benchmark, printed side by side from one run: POST /v1/chat/completions with the offline model
// (requests/s whole and streamed, time to first token, time per streamed token) at 1 and 50 concurrent
// clients on the real server (the default bundle) and on the agent bundle alone, against a bare
// node:http server writing the same frames. Every server is its own process; the load generator runs
// in a worker thread. Not a test: it asserts nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { root, spawnServer } from '../test/helpers/server.ts';

const CONCURRENCY = [1, 50] as const;
const ROUND_S = 3;
const ROUNDS = 2;
const WARMUP_S = 1;
const STREAM_REQUESTS = 200;
const PATH = '/v1/chat/completions';
/** Fixed history: the offline model's reply (and so the token count) is the same for every request. */
const MESSAGES = [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'Hi! How can I help?' }, { role: 'user', content: 'I need a quiet weekend away from my phone' }];
const body = (stream: boolean) => JSON.stringify({ model: 'svc-offline-1', stream, messages: MESSAGES });

interface Target { name: string; url: string }
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

/** One streamed request: the content deltas in order (also the preflight that both sides agree). */
function streamedTokens(target: Target): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const req = request(target.url + PATH, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { raw += chunk; });
      res.on('end', () => resolve(raw.split('\n\n').filter((b) => b.startsWith('data: {')).map((b) => JSON.parse(b.slice(6)).choices[0].delta.content).filter((c) => c !== undefined)));
    });
    req.on('error', reject);
    req.end(body(true));
  });
}

interface Timing { ttft: number; lastToken: number; total: number }

/** One streamed request: milliseconds to the first and to the last content delta, and to the end of the stream. */
function timeStream(target: Target, agent: Agent): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first: number | undefined;
    let last = 0;
    const req = request(target.url + PATH, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.setEncoding('utf8');
      const marker = '"content"';
      let carry = '';
      res.on('data', (chunk: string) => {
        // A marker split across two reads is seen through the previous read's last characters.
        const seen = chunk.includes(marker) || (carry + chunk.slice(0, marker.length - 1)).includes(marker);
        carry = chunk.slice(1 - marker.length);
        if (!seen) return;
        last = performance.now() - started;
        first ??= last;
      });
      res.on('end', () => (first === undefined ? reject(new Error(`${target.name}: no content delta`)) : resolve({ ttft: first, lastToken: last, total: performance.now() - started })));
    });
    req.on('error', reject);
    req.end(body(true));
  });
}

async function streamTimings(target: Target, concurrency: number): Promise<Timing[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const samples: Timing[] = [];
  const perClient = Math.ceil(STREAM_REQUESTS / concurrency);
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = 0; i < perClient; i++) samples.push(await timeStream(target, agent));
  }));
  agent.destroy();
  return samples;
}

async function requestsPerSecond(target: Target, stream: boolean, connections: number, seconds: number): Promise<{ rps: number; failures: number }> {
  const result = await autocannon({
    url: target.url + PATH, method: 'POST', headers: { 'content-type': 'application/json' }, body: body(stream),
    connections, duration: seconds, workers: 1,
  });
  return { rps: result['2xx'] / result.duration, failures: result.non2xx + result.errors };
}

/** A bench server script in its own process, like the real server; resolves with its printed URL. */
async function startScript(name: string, file: string, env: Record<string, string>): Promise<{ target: Target; process: ChildProcess }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', join(root, file)], { cwd: root, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => { out += d; const match = /URL: (\S+)/.exec(out); if (match) resolve(match[1]!); });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  return { target: { name, url }, process: child };
}

const server = await spawnServer();
const product: Target = { name: 'product', url: server.url };
const tokens = await streamedTokens(product);
const agentDir = mkdtempSync(join(tmpdir(), 'svc-bench-chat-'));
const agentOnly = await startScript('agent', 'bench/chat-agent-server.ts', { SVC_STATE_DIR: agentDir });
const bare = await startScript('bare', 'bench/chat-bare-sse.ts', { BARE_TOKENS: JSON.stringify(tokens), BARE_MODEL: 'svc-offline-1' });
const sides = [product, agentOnly.target, bare.target];
const loadBefore = load();
const rows: string[] = [];
const summary: string[] = [];
try {
  for (const side of sides.slice(1)) {
    const streamed = await streamedTokens(side);
    if (streamed.join('') !== tokens.join('') || streamed.length !== tokens.length) throw new Error(`${side.name} streams different tokens`);
  }
  console.log(`POST ${PATH}, offline model, ${tokens.length} content deltas per reply: "${tokens.join('')}"`);
  console.log('product: bin/svc.ts, the default bundle (its context providers include knowledge); agent: the agent bundle alone; bare: node:http writing the same frames');
  console.log(`node ${process.version}, ${availableParallelism()} cores, load ${loadBefore}; ${WARMUP_S} s warm-up, ${ROUNDS} alternating rounds of ${ROUND_S} s; stream timings over ${STREAM_REQUESTS} requests\n`);
  for (const side of sides) for (const stream of [false, true]) await requestsPerSecond(side, stream, 10, WARMUP_S);

  const cell = (values: Record<string, number>, digits: number) => sides.map((s) => `${s.name} ${values[s.name]!.toFixed(digits)}`).join('  ');
  const ratios = (values: Record<string, number>, digits = 3) => sides.slice(0, 2).map((s) => `${s.name}/bare ${(values[s.name]! / values.bare!).toFixed(digits)}`).join('  ');
  for (const connections of CONCURRENCY) {
    for (const stream of [false, true]) {
      const rps: Record<string, number[]> = Object.fromEntries(sides.map((s) => [s.name, []]));
      let failures = 0;
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of sides) {
          const result = await requestsPerSecond(side, stream, connections, ROUND_S);
          rps[side.name]!.push(result.rps);
          failures += result.failures;
        }
      }
      const medians = Object.fromEntries(sides.map((s) => [s.name, median(rps[s.name]!)]));
      rows.push(`${stream ? 'streamed' : 'whole   '} c=${String(connections).padEnd(2)}  req/s ${cell(medians, 0)}  ratio ${ratios(medians)}  non-2xx/errors ${failures}`);
      summary.push(`${stream ? 'stream' : 'json'}@${connections} req/s ${ratios(medians, 3)}`);
    }
    const timings: Record<string, Timing[]> = {};
    for (const side of sides) timings[side.name] = await streamTimings(side, connections);
    const ttft = Object.fromEntries(sides.map((s) => [s.name, median(timings[s.name]!.map((t) => t.ttft))]));
    // From the first to the last content delta: the cost of delivering each further token.
    const perToken = Object.fromEntries(sides.map((s) => [s.name, median(timings[s.name]!.map((t) => ((t.lastToken - t.ttft) * 1000) / Math.max(1, tokens.length - 1)))]));
    // After the last token: finish_reason, [DONE], and for the agent storing the reply and its trajectory.
    const tail = Object.fromEntries(sides.map((s) => [s.name, median(timings[s.name]!.map((t) => t.total - t.lastToken))]));
    const p95 = Object.fromEntries(sides.map((s) => [s.name, percentile(timings[s.name]!.map((t) => t.ttft), 0.95)]));
    rows.push(`TTFT     c=${String(connections).padEnd(2)}  ms median ${cell(ttft, 2)}  p95 ${cell(p95, 1)}  ratio ${ratios(ttft, 2)}`);
    rows.push(`token    c=${String(connections).padEnd(2)}  µs per streamed token after the first, median ${cell(perToken, 1)}  ratio ${ratios(perToken, 2)}`);
    rows.push(`end      c=${String(connections).padEnd(2)}  ms from the last token to the end of the stream, median ${cell(tail, 2)}`);
    summary.push(`ttft@${connections} ${ratios(ttft, 1)}`, `per-token@${connections} ${ratios(perToken, 1)}`);
  }
} finally {
  bare.process.kill('SIGTERM');
  agentOnly.process.kill('SIGTERM');
  await server.stop();
  server.cleanup();
  rmSync(agentDir, { recursive: true, force: true });
}
for (const row of rows) console.log(row);
console.log(`load average before/after: ${loadBefore} / ${load()}\n`);
console.log(`SUMMARY ${summary.join('; ')}`);
