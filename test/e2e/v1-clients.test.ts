// The /v1 compatibility endpoints driven by the official openai and @anthropic-ai/sdk clients against
// the real server process: formats, streaming order, room isolation, errors, and token handling.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpawnedServer } from '../helpers/server.ts';
import { postJson, start, stopAll } from './_helpers.ts';
import { postSse } from './agent-streams.ts';

const TOKEN = 'v1-e2e-token-5d1c0a';
let open: SpawnedServer;
let locked: SpawnedServer | undefined;
const openai = (server: SpawnedServer, apiKey = 'sk-placeholder') => new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 });
const anthropic = (server: SpawnedServer, apiKey = 'placeholder') => new Anthropic({ baseURL: server.url, apiKey, maxRetries: 0 });
/** A request parameter the formats do not define (room_id) rides along in the body. */
const withRoom = <T>(params: T, room: string) => ({ ...params, room_id: room }) as T;

test.before(async () => { open = await start(); });
test.after(async () => { await stopAll(); });

test('chat completions, not streamed: the documented shape from the agent', async () => {
  const completion = await openai(open).chat.completions.create(withRoom({ model: 'Eliza', messages: [{ role: 'user', content: 'Who are you?' }] }, 'shape'));
  assert.match(completion.id, /^chatcmpl-[0-9a-f]{32}$/);
  assert.is(completion.object, 'chat.completion');
  assert.is(completion.model, 'Eliza');
  assert.type(completion.created, 'number');
  assert.is(completion.choices.length, 1);
  assert.is(completion.choices[0]!.message.role, 'assistant');
  assert.match(completion.choices[0]!.message.content!, /^I'm Eliza\./);
  assert.is(completion.choices[0]!.finish_reason, 'stop');
  assert.ok(completion.usage!.total_tokens > 0);
});

test('chat completions, streamed: role delta, content deltas, finish_reason stop, then [DONE]', async () => {
  const stream = await openai(open).chat.completions.create(withRoom({ model: 'Eliza', stream: true, messages: [{ role: 'user', content: 'Who are you?' }] }, 'stream'));
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]!.id && c.id.startsWith('chatcmpl-')));
  assert.equal(chunks[0]!.choices[0]!.delta, { role: 'assistant' });
  const content = chunks.slice(1, -1).map((c) => c.choices[0]!.delta.content);
  assert.ok(content.length > 3, 'streamed word by word');
  assert.match(content.join(''), /^I'm Eliza\./);
  assert.equal(chunks.at(-1)!.choices[0], { index: 0, delta: {}, finish_reason: 'stop' });
  const raw = await postSse(`${open.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'hi' }], room_id: 'raw' }, { accept: 'text/event-stream' });
  assert.match(raw.contentType, /^text\/event-stream/);
  const frames = await raw.until((f) => f.at(-1)?.data === '[DONE]');
  assert.is(frames.at(-1)!.data, '[DONE]', 'Accept: text/event-stream alone selects streaming');
});

test('messages, not streamed and streamed: documented shapes and event order', async () => {
  const client = anthropic(open);
  const message = await client.messages.create(withRoom({ model: 'Eliza', max_tokens: 5, system: 'Be brief.', messages: [{ role: 'user', content: 'I need a break' }] }, 'anthropic'));
  assert.match(message.id, /^msg_[0-9a-f]{32}$/);
  assert.is(message.type, 'message');
  assert.is(message.role, 'assistant');
  assert.is(message.stop_reason, 'end_turn');
  assert.is(message.content[0]!.type, 'text');
  assert.match((message.content[0] as { text: string }).text, /break/);

  const events = await client.messages.create(withRoom({ model: 'Eliza', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'I need a break' }] }, 'anthropic-stream'));
  const types: string[] = [];
  let text = '';
  for await (const event of events) {
    types.push(event.type);
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  }
  const deltas = types.filter((t) => t === 'content_block_delta').length;
  assert.ok(deltas > 2);
  assert.equal(types, ['message_start', 'content_block_start', ...Array(deltas).fill('content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop']);
  assert.is(text, (message.content[0] as { text: string }).text, 'the same deterministic answer in a fresh room');

  const helper = client.messages.stream(withRoom({ model: 'Eliza', max_tokens: 5, messages: [{ role: 'user', content: 'hello' }] }, 'helper'));
  const final = await helper.finalMessage();
  assert.match((final.content[0] as { text: string }).text, /Eliza/);
});

test('room_id isolates conversations: what one room was told, another does not know', async () => {
  const client = openai(open);
  const ask = async (room: string, content: string) => (await client.chat.completions.create(withRoom({ model: 'Eliza', messages: [{ role: 'user', content }] }, room))).choices[0]!.message.content;
  assert.match((await ask('room-a', 'My name is Zed'))!, /Zed/);
  assert.is(await ask('room-b', "What's my name?"), "I don't know your name yet. What should I call you?");
  assert.is(await ask('room-a', "What's my name?"), 'You told me your name is Zed.');
  const history = await client.chat.completions.create(withRoom({ model: 'Eliza', messages: [{ role: 'user', content: 'my name is Ann' }, { role: 'assistant', content: 'Hi Ann' }, { role: 'user', content: "what's my name?" }] }, 'room-b'));
  assert.is(history.choices[0]!.message.content, 'You told me your name is Ann.', 'history sent in the request is used');
});

test('400 without a user message or with blocked keys; 503 while the agent is stopped', async () => {
  const client = openai(open);
  const refused = await client.chat.completions.create({ model: 'Eliza', messages: [{ role: 'assistant', content: 'hello' }] }).catch((e: unknown) => e);
  assert.instance(refused, OpenAI.BadRequestError);
  assert.is((refused as InstanceType<typeof OpenAI.APIError>).status, 400);
  const noMessages = await anthropic(open).messages.create({ model: 'Eliza', max_tokens: 5, messages: [] }).catch((e: unknown) => e);
  assert.instance(noMessages, Anthropic.BadRequestError);
  for (const [path, body] of [
    ['/v1/chat/completions', '{"messages":[{"role":"user","content":"hi","constructor":{"x":1}}]}'],
    ['/v1/messages', '{"messages":[{"role":"user","content":"hi"}],"__proto__":{"admin":true}}'],
    ['/v1/chat/completions', '{"model":"x"}'],
  ] as const) {
    const res = await postJson(`${open.url}${path}`, body);
    assert.is(res.status, 400, body);
    assert.is(((await res.json()) as { code: string }).code, 'INVALID_REQUEST');
  }
  assert.is((await postJson(`${open.url}/api/agent/stop`, {})).status, 200);
  try {
    const stopped = await client.chat.completions.create({ model: 'Eliza', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    assert.instance(stopped, OpenAI.APIError);
    assert.is((stopped as InstanceType<typeof OpenAI.APIError>).status, 503);
    const stoppedToo = await anthropic(open).messages.create({ model: 'Eliza', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    assert.is((stoppedToo as InstanceType<typeof Anthropic.APIError>).status, 503);
  } finally {
    await postJson(`${open.url}/api/agent/start`, {});
  }
});

test('models: the agent name and the active model id', async () => {
  const list = await openai(open).models.list();
  assert.equal(list.data.map((m) => m.id), ['Eliza', 'svc-offline-1']);
  assert.ok(list.data.every((m) => m.object === 'model' && typeof m.created === 'number' && m.owned_by));
  assert.is((await openai(open).models.retrieve('svc-offline-1')).id, 'svc-offline-1');
  const missing = await openai(open).models.retrieve('gpt-9').catch((e: unknown) => e);
  assert.instance(missing, OpenAI.NotFoundError);
});

test('with SVC_API_TOKEN: the token as the client key (Bearer or x-api-key); anything else is 401', async () => {
  locked = await start({ env: { SVC_API_TOKEN: TOKEN } });
  const ok = await openai(locked, TOKEN).chat.completions.create({ model: 'Eliza', messages: [{ role: 'user', content: 'hi' }] });
  assert.match(ok.choices[0]!.message.content!, /Eliza/);
  const viaAnthropic = await anthropic(locked, TOKEN).messages.create({ model: 'Eliza', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
  assert.is(viaAnthropic.type, 'message');
  const apiKeyHeader = await postJson(`${locked.url}/v1/messages`, { max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': TOKEN });
  assert.is(apiKeyHeader.status, 200);
  const wrong = await openai(locked, 'sk-placeholder').chat.completions.create({ model: 'Eliza', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  assert.instance(wrong, OpenAI.AuthenticationError);
  const wrongToo = await anthropic(locked, 'nope').messages.create({ model: 'Eliza', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  assert.instance(wrongToo, Anthropic.AuthenticationError);
  assert.is((await fetch(`${locked.url}/v1/models`)).status, 401);
});

test.run();
