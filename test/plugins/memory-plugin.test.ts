// Memory: remember and search endpoints, ranking over all memories, quick answers with knowledge, use in chat.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../sdk/testing.ts';
import { extensions, startAgentKernel } from './agent-helpers.ts';

const remember = (k: TestKernel, text: string, tags?: string[]) => k.inject({ method: 'POST', url: '/api/memory/remember', body: { text, tags } });
const search = async (k: TestKernel, q: string, limit = 10) => (await k.inject({ url: `/api/memory/search?q=${encodeURIComponent(q)}&limit=${limit}` })).body.results as { id: string; text: string; score: number; createdAt: number; tags: string[] }[];

test('remember → 201 {ok, id}; search ranks by the share of rare query terms matched', async () => {
  const k = await startAgentKernel();
  try {
    const saved = await remember(k, 'The wifi password is hunter2', ['home']);
    assert.is(saved.status, 201);
    assert.is(saved.body.ok, true);
    assert.type(saved.body.id, 'string');
    await remember(k, 'The office wifi is called GuestNet');
    await remember(k, 'Buy milk and eggs');
    const results = await search(k, 'what is the wifi password?');
    assert.equal(results.map((r) => r.text), ['The wifi password is hunter2', 'The office wifi is called GuestNet']);
    assert.is(results[0]!.score, 1);
    assert.ok(results[1]!.score > 0 && results[1]!.score < 1);
    assert.equal(results[0]!.tags, ['home']);
    assert.is(results[0]!.id, saved.body.id);
    assert.type(results[0]!.createdAt, 'number');
    assert.equal(await search(k, 'the and what'), [], 'only common words: nothing to look for');
    assert.is((await search(k, 'wifi', 1)).length, 1);
    for (const bad of ['/api/memory/search', '/api/memory/search?q=', '/api/memory/search?q=%20', '/api/memory/search?q=x&limit=0']) {
      assert.is((await k.inject({ url: bad })).status, 400, bad);
    }
    for (const body of [{}, { text: '' }, { text: '  ' }, { text: 'x', tags: 'a' }]) {
      assert.is((await k.inject({ method: 'POST', url: '/api/memory/remember', body })).status, 400);
    }
  } finally {
    await k.close();
  }
});

test('search reaches every memory, not only the latest ones', async () => {
  const k = await startAgentKernel();
  try {
    await remember(k, 'The first pet was a tortoise named Sheldon');
    for (let i = 0; i < 510; i++) await remember(k, `routine note number ${i}`);
    assert.equal((await search(k, 'tortoise')).map((r) => r.text), ['The first pet was a tortoise named Sheldon']);
  } finally {
    await k.close();
  }
});

test('context/quick answers from the best source across memory and knowledge', async () => {
  const knowledge = {
    name: 'knowledge',
    get: async ({ text }: { text: string }) => (text.includes('refund')
      ? { text: 'ctx', items: [{ id: 'frag-1', title: 'policy.md', score: 0.82, text: 'Refunds are issued within 14 days of purchase.' }] }
      : undefined),
  };
  const k = await startAgentKernel({ plugins: [extensions({ providers: [knowledge] })] });
  try {
    await remember(k, 'Refund request for order 991 was sent on Monday');
    const answer = (await k.inject({ url: '/api/context/quick?q=refund+policy+days' })).body;
    assert.is(answer.answer, 'From policy.md: Refunds are issued within 14 days of purchase.');
    assert.equal(answer.sources.map((s: { type: string; id: string }) => s.type), ['knowledge', 'memory']);
    assert.is(answer.sources[0].title, 'policy.md');
    const fromMemory = (await k.inject({ url: '/api/context/quick?q=order+991' })).body;
    assert.is(fromMemory.answer, 'You noted: Refund request for order 991 was sent on Monday');
    const nothing = (await k.inject({ url: '/api/context/quick?q=volcano' })).body;
    assert.equal(nothing, { answer: "I couldn't find anything about that in memory or knowledge.", sources: [] });
    assert.is((await k.inject({ url: '/api/context/quick' })).status, 400);
  } finally {
    await k.close();
  }
});

test('in chat: "remember that …" stores a memory through REMEMBER, and a later question recalls it', async () => {
  const k = await startAgentKernel();
  try {
    const id = (await k.inject({ method: 'POST', url: '/api/conversations', body: {} })).body.conversation.id;
    const saved = await k.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, body: { text: 'Please remember that the spare key is under the blue pot' } });
    assert.is(saved.body.text, 'Sure, running REMEMBER.\n\nGot it, I\'ll remember that: “the spare key is under the blue pot”');
    assert.equal((await search(k, 'spare key')).map((r) => [r.text, r.tags]), [['the spare key is under the blue pot', ['chat']]]);
    const other = (await k.inject({ method: 'POST', url: '/api/conversations', body: {} })).body.conversation.id;
    const recalled = await k.inject({ method: 'POST', url: `/api/conversations/${other}/messages`, body: { text: 'Where is the spare key?' } });
    assert.is(recalled.body.text, 'From what you asked me to remember: “the spare key is under the blue pot”');
  } finally {
    await k.close();
  }
});

test.run();
