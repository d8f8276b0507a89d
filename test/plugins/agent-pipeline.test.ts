// The message pipeline in-process: trajectories, action lines, evaluators, provider selection, failures.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentText, agentTrajectories, HttpError, roomIdFor, type Evaluator, type ModelRequest } from '../../sdk/index.ts';
import type { TestKernel } from '../../sdk/testing.ts';
import { aborted, extensions, scripted, startAgentKernel, until } from './agent-helpers.ts';

async function conversation(k: TestKernel): Promise<string> {
  return (await k.inject({ method: 'POST', url: '/api/conversations', body: {} })).body.conversation.id;
}
const send = (k: TestKernel, id: string, text: string) => k.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, body: { text } });

test('a chat turn is one completed trajectory with its model call and provider accesses, in the spec\'s fields', async () => {
  const k = await startAgentKernel();
  try {
    const id = await conversation(k);
    const res = await send(k, id, 'I need a holiday');
    assert.is(res.status, 200);
    const store = k.kernel.resolve(agentTrajectories)!;
    const { trajectories, total } = await store.list();
    assert.is(total, 1);
    const [t] = trajectories;
    assert.is(t!.status, 'completed');
    assert.is(t!.source, 'client_chat');
    assert.is(t!.conversationId, id);
    assert.is(t!.llmCallCount, 1);
    assert.is(t!.providerAccessCount, 1, 'the memory provider was asked');
    assert.ok(t!.totalPromptTokens > 0 && t!.totalCompletionTokens > 0);
    assert.ok(t!.endTime! >= t!.startTime && t!.durationMs === t!.endTime! - t!.startTime);
    assert.match(t!.createdAt, /^\d{4}-\d\d-\d\dT/);
    const detail = (await store.get(t!.id))!;
    const call = detail.llmCalls[0]!;
    assert.equal(Object.keys(call).sort(), ['actionType', 'completionTokens', 'createdAt', 'id', 'latencyMs', 'maxTokens', 'model', 'promptTokens', 'purpose', 'response', 'stepId', 'systemPrompt', 'temperature', 'timestamp', 'trajectoryId', 'userPrompt']);
    assert.is(call.model, 'svc-offline-1');
    assert.match(call.systemPrompt, /^You are Eliza\./);
    assert.match(call.systemPrompt, /REMEMBER/, 'registered actions are described to the model');
    assert.is(call.userPrompt, 'I need a holiday');
    assert.is(call.response, res.body.text);
    assert.is(call.purpose, 'chat');
    const access = detail.providerAccesses[0]!;
    assert.is(access.providerName, 'memory');
    assert.is(access.stepId, call.stepId);
    assert.is((access.data as { query: string }).query, 'I need a holiday');

    await send(k, id, 'I need sleep');
    const second = (await store.list()).trajectories[0]!;
    assert.match((await store.get(second.id))!.llmCalls[0]!.userPrompt, /^user: I need a holiday\nassistant: .+\nuser: I need sleep$/s, 'history is part of the recorded prompt');
    assert.is(await store.delete([second.id]), 1);
    assert.is((await store.list()).total, 1);
  } finally {
    await k.close();
  }
});

test('an ACTION line from a vendor-style model runs the action; the line is never shown', async () => {
  const calls: Record<string, string>[] = [];
  const echo = { name: 'ECHO', description: 'Repeat a text', parameters: [{ name: 'text', description: 'What to repeat', required: true }], handler: async (params: Record<string, string>) => { calls.push(params); return { text: `echoed: ${params.text}` }; } };
  const model = scripted('vendor', ['Let me ', 'check.\nAC', 'TION: ECHO {"text"', ': "ping"}\n']);
  const k = await startAgentKernel({ plugins: [extensions({ models: [model], actions: [echo] })] });
  try {
    const id = await conversation(k);
    const res = await k.inject({ method: 'POST', url: `/api/conversations/${id}/messages/stream`, body: { text: 'echo ping please' } });
    const frames = res.text.split('\n\n').filter((b) => b.startsWith('data: ')).map((b) => JSON.parse(b.slice(6)));
    const tokens = frames.filter((f) => f.type === 'token').map((f) => f.text).join('');
    assert.is(tokens, 'Let me check.\n\nechoed: ping');
    assert.not.match(res.text, /ACTION:/);
    assert.equal(calls, [{ text: 'ping' }]);
    assert.is(frames.at(-1).type, 'done');
    assert.is(frames.at(-1).fullText, 'Let me check.\n\nechoed: ping');
    const { trajectories } = await k.kernel.resolve(agentTrajectories)!.list();
    const detail = (await k.kernel.resolve(agentTrajectories)!.get(trajectories[0]!.id))!;
    assert.is(detail.llmCalls[0]!.actionType, 'ECHO');
    assert.ok(detail.providerAccesses.some((a) => a.providerName === 'action:ECHO' && (a.data as { ok: boolean }).ok));
    const events = (await k.inject({ url: '/api/agent/events' })).body.events;
    assert.ok(events.some((e: { payload: { stream: string; name: string } }) => e.payload.stream === 'action' && e.payload.name === 'ECHO'));
  } finally {
    await k.close();
  }
});

test('evaluators see each stored turn; failing and slow context providers are skipped, not fatal', async () => {
  const turns: Parameters<Evaluator['run']>[0][] = [];
  const k = await startAgentKernel({
    agent: { providerTimeoutMs: 100 },
    plugins: [extensions({
      evaluators: [{ name: 'collector', run: async (turn) => { turns.push(turn); } }, { name: 'broken', run: async () => { throw new Error('evaluator bug'); } }],
      providers: [
        { name: 'broken', get: async () => { throw new Error('provider bug'); } },
        { name: 'stuck', get: () => new Promise(() => undefined) },
        { name: 'facts', get: async () => ({ text: 'The moon is made of rock.', items: [{ id: 'f', text: 'The moon is made of rock.', score: 0.9 }] }) },
      ],
    })],
  });
  try {
    const id = await conversation(k);
    const res = await send(k, id, 'what is the moon made of?');
    assert.is(res.status, 200);
    assert.match(res.body.text, /The moon is made of rock\./, 'the working provider still informs the reply');
    await until(() => turns.length === 1, 'the evaluator');
    assert.equal(turns[0], { userText: 'what is the moon made of?', replyText: res.body.text, roomId: roomIdFor('conversation', id) });
    const store = k.kernel.resolve(agentTrajectories)!;
    const accesses = (await store.get((await store.list()).trajectories[0]!.id))!.providerAccesses;
    const byName = Object.fromEntries(accesses.map((a) => [a.providerName, a.data as { error?: string }]));
    assert.match(byName.broken!.error!, /provider bug/);
    assert.match(byName.stuck!.error!, /timed out after 100 ms/);
    assert.is(byName.facts!.error, undefined);
  } finally {
    await k.close();
  }
});

test('provider selection: configured name, else the first non-offline provider, else offline', async () => {
  const vendor = scripted('vendor', ['from vendor']);
  const withVendor = await startAgentKernel({ plugins: [extensions({ models: [vendor] })] });
  try {
    assert.is((await withVendor.inject({ url: '/api/status' })).body.model, 'vendor-model');
    const id = await conversation(withVendor);
    assert.is((await send(withVendor, id, 'hi')).body.text, 'from vendor');
  } finally {
    await withVendor.close();
  }
  const pinned = await startAgentKernel({ agent: { provider: 'offline' }, plugins: [extensions({ models: [vendor] })] });
  try {
    assert.is((await pinned.inject({ url: '/api/status' })).body.provider, 'offline');
  } finally {
    await pinned.close();
  }
  const missing = await startAgentKernel({ agent: { provider: 'nowhere' } });
  try {
    const id = await conversation(missing);
    const res = await send(missing, id, 'hi');
    assert.is(res.status, 503);
    assert.match(res.body.error, /"nowhere" \(SVC_MODEL_PROVIDER\) is not registered; registered: offline/);
    assert.is((await missing.inject({ url: '/api/status' })).body.model, 'none');
  } finally {
    await missing.close();
  }
});

test('failures: a throwing model is a 502 with an error trajectory, a hung one times out, the server keeps serving', async () => {
  const models = [
    { name: 'thrower', async *stream(): AsyncIterable<never> { throw Object.assign(new Error('invalid key sk-xx'), { status: 401 }); } },
    { name: 'hung', async *stream(): AsyncIterable<never> { await new Promise(() => undefined); } },
  ];
  for (const [provider, status, code, trajectoryStatus] of [['thrower', 502, 'MODEL_AUTH_FAILED', 'error'], ['hung', 502, 'MODEL_TIMEOUT', 'timeout']] as const) {
    const k = await startAgentKernel({ agent: { provider, replyTimeoutMs: 200 }, plugins: [extensions({ models })] });
    try {
      const id = await conversation(k);
      const res = await send(k, id, 'hello?');
      assert.is(res.status, status, provider);
      assert.is(res.body.code, code);
      const [t] = (await k.kernel.resolve(agentTrajectories)!.list()).trajectories;
      assert.is(t!.status, trajectoryStatus);
      assert.is((t!.metadata as { code: string }).code, code);
      const messages = (await k.inject({ url: `/api/conversations/${id}/messages` })).body.messages;
      assert.equal(messages.map((m: { role: string }) => m.role), ['user'], 'the user message is kept, no reply is stored');
      assert.is((await k.inject({ url: '/api/status' })).status, 200);
    } finally {
      await k.close();
    }
  }
});

test('agentText generates with the active model (trajectory source generate); 503 unless running', async () => {
  let seen: ModelRequest | undefined;
  const model = { name: 'vendor', async *stream(request: ModelRequest) { seen = request; yield { type: 'text' as const, text: 'generated words' }; } };
  const k = await startAgentKernel({ plugins: [extensions({ models: [model] })] });
  try {
    const text = k.kernel.resolve(agentText)!;
    assert.is(await text.generate({ system: 'Answer in JSON.', prompt: 'Make an action', purpose: 'custom-action-generate' }), 'generated words');
    assert.equal(seen!.context.actions, [], 'one-shot generation offers no actions');
    assert.match(seen!.messages[0]!.content, /Answer in JSON\.$/);
    assert.equal(seen!.messages.slice(1), [{ role: 'user', content: 'Make an action' }]);
    const [t] = (await k.kernel.resolve(agentTrajectories)!.list({ source: 'generate' })).trajectories;
    assert.is(t!.providerAccessCount, 0);
    assert.is((t!.metadata as { purpose: string }).purpose, 'custom-action-generate');
    await k.inject({ method: 'POST', url: '/api/agent/stop' });
    await text.generate({ prompt: 'x', purpose: 'p' }).then(() => assert.unreachable('should fail'), (error: HttpError) => assert.is(error.status, 503));
  } finally {
    await k.close();
  }
});

test('stopping the agent aborts in-flight replies (the provider sees its signal)', async () => {
  let signalled = false;
  const model = { name: 'waiter', async *stream(request: ModelRequest): AsyncIterable<never> { await aborted(request.signal); signalled = true; } };
  const k = await startAgentKernel({ plugins: [extensions({ models: [model] })] });
  try {
    const id = await conversation(k);
    const pending = send(k, id, 'take your time');
    await until(async () => (await k.kernel.resolve(agentTrajectories)!.list()).total === 1, 'the reply to start');
    assert.is((await k.inject({ method: 'POST', url: '/api/agent/stop' })).status, 200);
    const res = await pending;
    assert.is(res.status, 503);
    assert.match(res.body.error, /stopped while replying/);
    assert.ok(signalled);
  } finally {
    await k.close();
  }
});

test.run();
