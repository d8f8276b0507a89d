// Conversations in-process: CRUD, messages and paging, validation, greeting, message submission, deletes that last.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentMessages, roomIdFor } from '../../sdk/index.ts';
import type { TestKernel } from '../../sdk/testing.ts';
import { extensions, startAgentKernel } from './agent-helpers.ts';

interface Conversation { id: string; title: string; roomId: string; createdAt: string; updatedAt: string }
const create = async (k: TestKernel, body: unknown = {}): Promise<Conversation> => (await k.inject({ method: 'POST', url: '/api/conversations', body })).body.conversation;
const send = (k: TestKernel, id: string, body: unknown) => k.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, body });

test('create, list (most recent first), rename; the first message names an untitled conversation', async () => {
  const k = await startAgentKernel();
  try {
    const created = await k.inject({ method: 'POST', url: '/api/conversations', body: {} });
    assert.is(created.status, 201);
    const a: Conversation = created.body.conversation;
    assert.is(a.title, 'New Chat');
    assert.is(a.roomId, roomIdFor('conversation', a.id));
    assert.match(a.createdAt, /^\d{4}-\d\d-\d\dT.*Z$/);
    const b = await create(k, { title: 'Trip planning' });
    assert.equal((await k.inject({ url: '/api/conversations' })).body.conversations.map((c: Conversation) => c.id), [b.id, a.id]);

    const reply = await send(k, a.id, { text: 'Hello there, can we talk about the garden shed roof that keeps leaking every spring?' });
    assert.is(reply.status, 200);
    assert.equal(Object.keys(reply.body).sort(), ['agentName', 'text']);
    assert.is(reply.body.agentName, 'Eliza');
    const listed: Conversation[] = (await k.inject({ url: '/api/conversations' })).body.conversations;
    assert.is(listed[0]!.id, a.id, 'a new message moves it to the top');
    assert.is(listed[0]!.title, 'Hello there, can we talk about the garden shed roof that…');

    await send(k, b.id, { text: 'hi' });
    assert.is((await k.inject({ url: '/api/conversations' })).body.conversations.find((c: Conversation) => c.id === b.id).title, 'Trip planning', 'a given title is kept');
    const renamed = await k.inject({ method: 'PATCH', url: `/api/conversations/${a.id}`, body: { title: 'Shed' } });
    assert.is(renamed.status, 200);
    assert.is(renamed.body.conversation.title, 'Shed');
  } finally {
    await k.close();
  }
});

test('bad input and unknown ids: 400 and 404, never 500', async () => {
  const k = await startAgentKernel();
  try {
    const { id } = await create(k);
    for (const body of [{}, { text: '' }, { text: '   \n ' }, { text: 42 }, { text: 'x', images: [{ data: 'AAAA', mimeType: 'text/plain' }] }]) {
      const res = await send(k, id, body);
      assert.is(res.status, 400, JSON.stringify(body));
      assert.is(res.body.code, 'INVALID_REQUEST');
    }
    assert.is((await k.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, body: '{"text": ', headers: { 'content-type': 'application/json' } })).status, 400);
    assert.is((await k.inject({ method: 'PATCH', url: `/api/conversations/${id}`, body: { title: '' } })).status, 400);
    const missing = 'no-such-conversation';
    for (const [method, url, body] of [
      ['GET', `/api/conversations/${missing}/messages`, undefined], ['POST', `/api/conversations/${missing}/messages`, { text: 'hi' }],
      ['POST', `/api/conversations/${missing}/messages/stream`, { text: 'hi' }], ['POST', `/api/conversations/${missing}/greeting`, undefined],
      ['PATCH', `/api/conversations/${missing}`, { title: 'x' }], ['DELETE', `/api/conversations/${missing}`, undefined],
    ] as const) {
      const res = await k.inject({ method, url, body });
      assert.is(res.status, 404, `${method} ${url}`);
      assert.is(res.body.code, 'NOT_FOUND');
    }
  } finally {
    await k.close();
  }
});

test('messages: oldest first, limit and before cursor; images are accepted and noted', async () => {
  const k = await startAgentKernel();
  try {
    const { id } = await create(k);
    for (const text of ['one', 'two', 'three']) await send(k, id, { text });
    const all = (await k.inject({ url: `/api/conversations/${id}/messages` })).body.messages;
    assert.is(all.length, 6);
    assert.equal(all.filter((m: { role: string }) => m.role === 'user').map((m: { text: string }) => m.text), ['one', 'two', 'three']);
    assert.equal(Object.keys(all[0]).sort(), ['id', 'role', 'source', 'text', 'timestamp']);
    assert.is(all[0].source, 'client_chat');
    const last2 = (await k.inject({ url: `/api/conversations/${id}/messages?limit=2` })).body.messages;
    assert.equal(last2.map((m: { id: string }) => m.id), all.slice(4).map((m: { id: string }) => m.id));
    const before = (await k.inject({ url: `/api/conversations/${id}/messages?limit=2&before=${all[4].id}` })).body.messages;
    assert.equal(before.map((m: { id: string }) => m.id), all.slice(2, 4).map((m: { id: string }) => m.id));
    assert.equal((await k.inject({ url: `/api/conversations/${id}/messages?before=unknown` })).body.messages, []);
    assert.is((await k.inject({ url: `/api/conversations/${id}/messages?limit=0` })).status, 400);

    const withImage = await send(k, id, { text: 'look at this', images: [{ data: Buffer.from('png').toString('base64'), mimeType: 'image/png', name: 'a.png' }] });
    assert.is(withImage.status, 200);
    const stored = await k.kernel.resolve(agentMessages)!.list(roomIdFor('conversation', id), { limit: 2 });
    assert.equal(stored[0]!.metadata, { images: 1 });
  } finally {
    await k.close();
  }
});

test('greeting: generated by the model and stored; the character\'s greeting when the model fails', async () => {
  const k = await startAgentKernel();
  try {
    const { id } = await create(k);
    const greeting = await k.inject({ method: 'POST', url: `/api/conversations/${id}/greeting` });
    assert.is(greeting.status, 200);
    assert.is(greeting.body.generated, true);
    assert.is(greeting.body.agentName, 'Eliza');
    assert.match(greeting.body.text, /Eliza/);
    const messages = (await k.inject({ url: `/api/conversations/${id}/messages` })).body.messages;
    assert.equal(messages.map((m: { role: string; text: string }) => [m.role, m.text]), [['assistant', greeting.body.text]], 'only the greeting is stored');
  } finally {
    await k.close();
  }
  const failing = { name: 'broken', async *stream(): AsyncIterable<never> { throw new Error('vendor down'); } };
  const k2 = await startAgentKernel({ plugins: [extensions({ models: [failing] })] });
  try {
    const { id } = await create(k2);
    const greeting = await k2.inject({ method: 'POST', url: `/api/conversations/${id}/greeting` });
    assert.equal(greeting.body, { text: "Hi, I'm Eliza. How can I help?", generated: false, agentName: 'Eliza' });
    assert.is((await k2.inject({ url: `/api/conversations/${id}/messages` })).body.messages.length, 1);
  } finally {
    await k2.close();
  }
});

test('messaging submit: agent responses into a conversation or any channel; data.id is the stored message', async () => {
  const k = await startAgentKernel();
  try {
    const { id } = await create(k);
    const into = await k.inject({ method: 'POST', url: '/api/messaging/submit', body: {
      channel_id: id, server_id: 'web', author_id: 'agent', content: 'Your build finished.', source_type: 'agent_response',
      raw_message: { text: 'Your build finished.', thought: 'tell them', actions: ['NOTIFY'] }, metadata: { job: 7 },
    } });
    assert.is(into.status, 201);
    assert.is(into.body.success, true);
    assert.is(into.body.data.conversationId, id);
    const messages = (await k.inject({ url: `/api/conversations/${id}/messages` })).body.messages;
    assert.equal(messages.map((m: { id: string; role: string; text: string }) => [m.id, m.role, m.text]), [[into.body.data.id, 'assistant', 'Your build finished.']]);
    const stored = (await k.kernel.resolve(agentMessages)!.list(roomIdFor('conversation', id)))[0]!;
    assert.equal(stored.metadata, { channelId: id, serverId: 'web', rawMessage: { text: 'Your build finished.', thought: 'tell them', actions: ['NOTIFY'] }, job: 7 });

    const channel = await k.inject({ method: 'POST', url: '/api/messaging/submit', body: { channel_id: 'ops', server_id: 'discord', author_id: 'u1', content: 'deploy done?', source_type: 'user_message' } });
    assert.is(channel.status, 201);
    assert.is(channel.body.data.conversationId, null);
    assert.is(channel.body.data.roomId, roomIdFor('channel', 'discord:ops'));
    const inRoom = await k.kernel.resolve(agentMessages)!.list(roomIdFor('channel', 'discord:ops'));
    assert.equal(inRoom.map((m) => [m.id, m.role, m.from]), [[channel.body.data.id, 'user', 'u1']]);
    for (const body of [{ channel_id: id }, { channel_id: '', content: 'x' }, { channel_id: id, content: ' ' }]) {
      assert.is((await k.inject({ method: 'POST', url: '/api/messaging/submit', body })).status, 400);
    }
  } finally {
    await k.close();
  }
});

test('delete removes the conversation and its messages for good, across a restart', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-conversations-'));
  try {
    let k = await startAgentKernel({ stateDir });
    const keep = await create(k, { title: 'keep' });
    const drop = await create(k, { title: 'drop' });
    await send(k, keep.id, { text: 'keep me' });
    await send(k, drop.id, { text: 'forget me' });
    const deleted = await k.inject({ method: 'DELETE', url: `/api/conversations/${drop.id}` });
    assert.is(deleted.status, 200);
    assert.equal(deleted.body, { ok: true });
    assert.is((await k.inject({ method: 'DELETE', url: `/api/conversations/${drop.id}` })).status, 404);
    await k.close();

    k = await startAgentKernel({ stateDir });
    try {
      assert.equal((await k.inject({ url: '/api/conversations' })).body.conversations.map((c: Conversation) => c.title), ['keep']);
      assert.equal(await k.kernel.resolve(agentMessages)!.list(drop.roomId), [], 'the room is empty too');
      assert.is((await k.inject({ url: `/api/conversations/${keep.id}/messages` })).body.messages.length, 2);
    } finally {
      await k.close();
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test.run();
