// Fault paths of the reply pipeline against the real server, with a test-only model provider that
// throws, hangs or streams slowly (test/fixtures/agent-fault-model.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpawnedServer } from '../helpers/server.ts';
import { until } from '../plugins/agent-helpers.ts';
import { postJson, start, stopAll } from './_helpers.ts';
import { postSse } from './agent-streams.ts';

let server: SpawnedServer;
let conversation: string;
const state = async () => (await (await fetch(`${server.url}/api/test-fault/state`)).json()) as { started: number; aborted: number };
const messages = async () => ((await (await fetch(`${server.url}/api/conversations/${conversation}/messages`)).json()) as { messages: { role: string; text: string }[] }).messages;
const trajectories = async () => ((await (await fetch(`${server.url}/api/test-fault/trajectories`)).json()) as { trajectories: { status: string; metadata: { code?: string } }[] }).trajectories;
const send = (text: string) => postJson(`${server.url}/api/conversations/${conversation}/messages`, { text });

test.before(async () => {
  server = await start({ env: { SVC_MODEL_PROVIDER: 'fault', SVC_REPLY_TIMEOUT_MS: '1500' }, args: ['--plugin', 'test/fixtures/agent-fault-model.ts'] });
  conversation = ((await (await postJson(`${server.url}/api/conversations`, {})).json()) as { conversation: { id: string } }).conversation.id;
});
test.after(async () => { await stopAll(); });

test('a throwing provider: 502 JSON, an error frame in each stream format, and the server keeps serving', async () => {
  const res = await send('throw-plain');
  assert.is(res.status, 502);
  assert.equal(await res.json(), { error: 'Model provider "fault" failed: fixture exploded', code: 'MODEL_ERROR' });

  const chat = await postSse(`${server.url}/api/conversations/${conversation}/messages/stream`, { text: 'throw-plain' });
  assert.is(chat.status, 200);
  const frames = await chat.until((f) => f.some((x) => x.data.type === 'error'));
  assert.equal(frames.map((f) => f.data), [{ type: 'error', message: 'Model provider "fault" failed: fixture exploded', code: 'MODEL_ERROR' }]);

  const completions = await postSse(`${server.url}/v1/chat/completions`, { stream: true, messages: [{ role: 'user', content: 'throw-plain' }] });
  const chunks = await completions.until((f) => f.some((x) => x.data.error));
  assert.equal(chunks.at(-1)!.data, { error: { message: 'Model provider "fault" failed: fixture exploded', type: 'server_error', code: 'MODEL_ERROR' } });
  assert.is(chunks[0]!.data.choices[0].delta.role, 'assistant');

  const anthropic = await postSse(`${server.url}/v1/messages`, { stream: true, max_tokens: 50, messages: [{ role: 'user', content: 'throw-plain' }] });
  const events = await anthropic.until((f) => f.some((x) => x.event === 'error'));
  assert.equal(events.map((e) => e.event), ['message_start', 'content_block_start', 'error']);
  assert.equal(events.at(-1)!.data, { type: 'error', error: { type: 'api_error', message: 'Model provider "fault" failed: fixture exploded' } });

  assert.is((await fetch(`${server.url}/api/health`)).status, 200);
  const fine = await send('all good');
  assert.is(fine.status, 200);
  assert.equal(await fine.json(), { text: 'fault model heard: all good', agentName: 'Eliza' });
});

test('a rejected key is a 502 MODEL_AUTH_FAILED; an unreachable vendor is a 503', async () => {
  const key = await send('throw-401');
  assert.is(key.status, 502);
  assert.equal(await key.json(), { error: 'Model provider "fault" rejected its API key: invalid x-api-key', code: 'MODEL_AUTH_FAILED' });
  const down = await postJson(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'unreachable' }] });
  assert.is(down.status, 503);
  assert.match(((await down.json()) as { error: string }).error, /unreachable \(ECONNREFUSED\)/);
});

test('a failure mid-stream: the tokens so far, then an error frame; the partial reply is not stored', async () => {
  const before = (await messages()).length;
  const stream = await postSse(`${server.url}/api/conversations/${conversation}/messages/stream`, { text: 'mid-fail' });
  const frames = await stream.until((f) => f.some((x) => x.data.type === 'error'));
  assert.equal(frames.map((f) => f.data.type), ['token', 'error']);
  assert.is(frames[0]!.data.text, 'partial ');
  const after = await messages();
  assert.equal(after.slice(before).map((m) => [m.role, m.text]), [['user', 'mid-fail']]);
});

test('a client that disconnects mid-stream frees the model call; the partial reply is not stored', async () => {
  const before = await state();
  const stored = (await messages()).length;
  const stream = await postSse(`${server.url}/api/conversations/${conversation}/messages/stream`, { text: 'slow please' });
  await stream.until((f) => f.filter((x) => x.data.type === 'token').length >= 3);
  stream.close();
  const seen = await until(async () => { const s = await state(); return s.aborted > before.aborted && s; }, 'the provider to see the abort');
  assert.is(seen.aborted, before.aborted + 1, 'the provider\'s AbortSignal fired');
  assert.equal((await messages()).slice(stored).map((m) => [m.role, m.text]), [['user', 'slow please']]);
  const [latest] = await trajectories();
  assert.is(latest!.status, 'error');
  assert.is(latest!.metadata.code, 'CLIENT_CLOSED');
});

test('a client that gives up on a non-streamed reply frees the model call too', async () => {
  const before = await state();
  const controller = new AbortController();
  const pending = fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, signal: controller.signal,
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hang on' }] }),
  }).catch((error: Error) => error);
  await until(async () => (await state()).started > before.started, 'the model call to start');
  controller.abort();
  assert.instance(await pending, Error);
  const seen = await until(async () => { const s = await state(); return s.aborted > before.aborted && s; }, 'the provider to see the abort');
  assert.is(seen.aborted, before.aborted + 1);
});

test('a provider that hangs and ignores its signal times out: 502 MODEL_TIMEOUT, a timeout trajectory, still serving', async () => {
  const res = await send('hang-deaf');
  assert.is(res.status, 502);
  assert.equal(await res.json(), { error: 'Model provider "fault" did not finish within 1500 ms', code: 'MODEL_TIMEOUT' });
  const [latest] = await trajectories();
  assert.is(latest!.status, 'timeout');
  assert.is((await send('still there?')).status, 200);
});

test.run();
