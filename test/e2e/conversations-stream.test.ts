// Conversations against the real server: the SSE reply, WebSocket notifications, a plugin route that
// makes the agent speak through /api/messaging/submit, and deletes that survive a restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import type { SpawnedServer } from '../helpers/server.ts';
import { until } from '../plugins/agent-helpers.ts';
import { postJson, start, stateDir, stop, stopAll, wsClose } from './_helpers.ts';
import { postSse } from './agent-streams.ts';

const SPEAKER = ['--plugin', 'test/fixtures/conversations-speaker-plugin.ts'];
let server: SpawnedServer;
let dir: string;
interface Conversation { id: string; title: string }
const json = async <T>(res: Promise<Response>) => (await (await res).json()) as T;
const create = async (title?: string) => (await json<{ conversation: Conversation }>(postJson(`${server.url}/api/conversations`, { title }))).conversation;
const messagesOf = async (id: string) => (await json<{ messages: { id: string; role: string; text: string }[] }>(fetch(`${server.url}/api/conversations/${id}/messages`))).messages;

test.before(async () => {
  dir = stateDir();
  server = await start({ stateDir: dir, args: SPEAKER });
});
test.after(async () => { await stopAll(); });

test('the stream: token frames word by word, then done with the full text; both messages are stored', async () => {
  const { id } = await create();
  const stream = await postSse(`${server.url}/api/conversations/${id}/messages/stream`, { text: 'I need a new watering can' });
  assert.is(stream.status, 200);
  assert.match(stream.contentType, /^text\/event-stream/);
  const frames = (await stream.until((f) => f.some((x) => x.data.type === 'done'))).map((f) => f.data);
  const tokens = frames.filter((f) => f.type === 'token');
  assert.ok(tokens.length > 3, JSON.stringify(frames));
  assert.ok(frames.every((f) => f.fullText === undefined || f.type === 'done'), 'token frames carry only their delta');
  const done = frames.at(-1)!;
  assert.equal(Object.keys(done).sort(), ['agentName', 'fullText', 'type']);
  assert.is(done.fullText, tokens.map((t) => t.text).join(''));
  assert.match(done.fullText, /a new watering can/);
  assert.equal((await messagesOf(id)).map((m) => [m.role, m.text]), [['user', 'I need a new watering can'], ['assistant', done.fullText]]);
  const missing = await postJson(`${server.url}/api/conversations/${id}/messages/stream`, { text: '' });
  assert.is(missing.status, 400, 'validation errors are JSON, before any stream opens');
});

test('/ws: conversation-updated on changes; a plugin route speaking via /api/messaging/submit arrives as proactive-message', async () => {
  // Listen before the socket opens: the server sends the status right away.
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws`);
  const received: Record<string, any>[] = [];
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  try {
    await until(() => received.length > 0, 'the status message');
    assert.is(received[0]!.type, 'status');
    assert.is(received[0]!.state, 'running');
    const conversation = await create();
    await until(() => received.some((m) => m.type === 'conversation-updated' && m.conversation.id === conversation.id), 'conversation-updated on create');
    await postJson(`${server.url}/api/conversations/${conversation.id}/messages`, { text: 'Planning a picnic' });
    await until(() => received.some((m) => m.type === 'conversation-updated' && m.conversation.title === 'Planning a picnic'), 'the auto-title update');

    const announced = await postJson(`${server.url}/api/speaker/announce`, { conversationId: conversation.id, text: 'Reminder: bring a blanket.' });
    assert.is(announced.status, 201);
    const body = (await announced.json()) as { success: boolean; submitted: { success: boolean; data: { id: string } } };
    assert.is(body.submitted.success, true);
    const proactive = await until(() => received.find((m) => m.type === 'proactive-message'), 'proactive-message');
    assert.is(proactive.conversationId, conversation.id);
    assert.equal({ id: proactive.message.id, role: proactive.message.role, text: proactive.message.text }, { id: body.submitted.data.id, role: 'assistant', text: 'Reminder: bring a blanket.' });
    assert.equal((await messagesOf(conversation.id)).at(-1), { ...proactive.message });

    await fetch(`${server.url}/api/conversations/${conversation.id}`, { method: 'DELETE' });
    await until(() => received.some((m) => m.type === 'conversation-updated' && m.deleted === true && m.conversation.id === conversation.id), 'the delete notice');
  } finally {
    await wsClose(ws);
  }
});

test('deletes are real: after a restart the deleted conversation and its messages are gone', async () => {
  const keep = await create('keep');
  const drop = await create('drop');
  await postJson(`${server.url}/api/conversations/${drop.id}/messages`, { text: 'secret plans' });
  assert.is((await fetch(`${server.url}/api/conversations/${drop.id}`, { method: 'DELETE' })).status, 200);
  await stop(server);
  server = await start({ stateDir: dir, args: SPEAKER });
  const titles = (await json<{ conversations: Conversation[] }>(fetch(`${server.url}/api/conversations`))).conversations.map((c) => c.id);
  assert.ok(titles.includes(keep.id));
  assert.not.ok(titles.includes(drop.id));
  assert.is((await fetch(`${server.url}/api/conversations/${drop.id}/messages`)).status, 404);
});

test.run();
