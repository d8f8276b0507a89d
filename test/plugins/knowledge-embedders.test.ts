// Embedding providers and the service's life cycle, against local servers that speak the OpenAI and
// Ollama wire formats: model id and dimension per fragment, all-or-nothing storage on failure,
// re-embedding after a model change, and the 503 rules while the model loads or is missing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import knowledge, { reembedProgressed } from '../../plugins/knowledge/index.ts';
import { definePlugin } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import type { KernelOptions } from '../../kernel/index.ts';
import { startEmbeddingServer, type EmbeddingServer, type EmbeddingServerOptions } from '../fixtures/knowledge/embedding-server.ts';
import { gatedEmbedder } from '../fixtures/knowledge/plugins.ts';

const servers: EmbeddingServer[] = [];
async function server(options: EmbeddingServerOptions): Promise<EmbeddingServer> {
  const started = await startEmbeddingServer(options);
  servers.push(started);
  return started;
}
const openAi = (s: EmbeddingServer, extra: Record<string, unknown> = {}) => ({ embeddingProvider: 'openai', embeddingBaseUrl: `${s.url}/v1`, embeddingModel: 'embed-test', ...extra });
const ollama = (s: EmbeddingServer, extra: Record<string, unknown> = {}) => ({ embeddingProvider: 'ollama', embeddingBaseUrl: s.url, embeddingModel: 'embed-test', ...extra });

async function withKnowledge(config: Record<string, unknown>, run: (t: TestKernel) => Promise<void>, options: KernelOptions = {}): Promise<void> {
  const t = await createTestKernel({ plugins: [knowledge], ...options, config: { knowledge: config } });
  try { await run(t); } finally { await t.close(); }
}

const upload = (t: TestKernel, filename: string, content: string) => t.inject({ method: 'POST', url: '/api/knowledge/documents', body: { filename, content } });
const search = (t: TestKernel, q: string) => t.inject({ url: `/api/documents/search?q=${encodeURIComponent(q)}&threshold=0.1` });
/** Sentences that share no words with each other (a numbered marker each), to make many fragments. */
const longText = (sentences: number, marker = 'topic') => Array.from({ length: sentences }, (_, i) => `Line ${i} of the ${marker} ${'padding '.repeat(20)}ends here.`).join(' ');

/** The model ids and dimensions stored with the fragments, read from the plugin's database file. */
async function storedModels(stateDir: string): Promise<Record<string, number>> {
  const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
  const db = new SQL.Database(readFileSync(join(stateDir, 'data', 'knowledge.sqlite')));
  try {
    const rows = db.exec('SELECT model, dimension, COUNT(*) FROM fragments GROUP BY model, dimension')[0]?.values ?? [];
    return Object.fromEntries(rows.map(([model, dimension, count]) => [`${model}/${dimension}`, Number(count)]));
  } finally { db.close(); }
}

test('OpenAI-compatible provider: documented wire format, API key, reduced dimensions; model and dimension stored', async () => {
  const s = await server({ dimension: 64, apiKey: 'sk-test' });
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-knowledge-'));
  try {
    await withKnowledge(openAi(s, { embeddingApiKey: 'sk-test', embeddingDimensions: 32 }), async (t) => {
      assert.is((await upload(t, 'tides.txt', 'The moon pulls the ocean tides.')).status, 200);
      await upload(t, 'stars.txt', 'Stars fuse hydrogen into helium.');
      const { body } = await search(t, 'ocean tides and the moon');
      assert.is(body.results[0].documentTitle, 'tides.txt');
    }, { stateDir });
    const [first] = s.requests;
    assert.is(first!.path, '/v1/embeddings');
    assert.is(first!.authorization, 'Bearer sk-test');
    assert.equal({ model: first!.body.model, encoding: first!.body.encoding_format, dimensions: first!.body.dimensions, input: first!.body.input },
      { model: 'embed-test', encoding: 'float', dimensions: 32, input: ['The moon pulls the ocean tides.'] });
    assert.equal(await storedModels(stateDir), { 'openai:embed-test@32/32': 2 });
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('Ollama provider: POST /api/embed; model and dimension stored', async () => {
  const s = await server({ dimension: 24 });
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-knowledge-'));
  try {
    await withKnowledge(ollama(s), async (t) => {
      await upload(t, 'bread.txt', 'Knead the dough and bake the loaf.');
      await upload(t, 'coins.txt', 'Bitcoin miners secure the ledger.');
      assert.is((await search(t, 'bake a loaf')).body.results[0].documentTitle, 'bread.txt');
    }, { stateDir });
    assert.equal(s.requests.map((r) => r.path), ['/api/embed', '/api/embed', '/api/embed']);
    assert.equal(s.requests[2]!.body, { model: 'embed-test', input: ['bake a loaf'] });
    assert.equal(await storedModels(stateDir), { 'ollama:embed-test/24': 2 });
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('an embedding failure is EMBEDDING_FAILED and stores nothing; in bulk only that item fails', async () => {
  const s = await server({ dimension: 16, failOn: 'EXPLODE' });
  await withKnowledge(ollama(s), async (t) => {
    // Over 32 fragments: the first batch of 32 embeds fine, the second fails; the document must not be half-stored.
    const doomed = await upload(t, 'doomed.txt', `${longText(300)} The last line says EXPLODE.`);
    assert.is(doomed.status, 500);
    assert.is(doomed.body.code, 'EMBEDDING_FAILED');
    assert.match(doomed.body.error, /Embeddings could not be generated/);
    assert.ok(s.requests.length >= 2, 'the failure came in a later batch');
    assert.equal((await t.inject({ url: '/api/knowledge/stats' })).body.fragmentCount, 0);
    assert.is((await t.inject({ url: '/api/documents' })).body.total, 0);

    const bulk = await t.inject({
      method: 'POST', url: '/api/documents/bulk',
      body: { documents: [{ filename: 'a.txt', content: 'Fine text.' }, { filename: 'b.txt', content: 'This one will EXPLODE.' }, { filename: 'c.txt', content: 'Also fine.' }] },
    });
    assert.equal(bulk.body.results.map((r: { ok: boolean; code?: string }) => [r.ok, r.code]), [[true, undefined], [false, 'EMBEDDING_FAILED'], [true, undefined]]);
    assert.is(bulk.body.ok, false);
    assert.equal((await t.inject({ url: '/api/documents' })).body.documents.map((d: { filename: string }) => d.filename).sort(), ['a.txt', 'c.txt']);
  });
  const locked = await server({ dimension: 16, apiKey: 'right' });
  await withKnowledge(openAi(locked, { embeddingApiKey: 'wrong' }), async (t) => {
    const refused = await upload(t, 'x.txt', 'Anything.');
    assert.is(refused.status, 500);
    assert.is(refused.body.code, 'EMBEDDING_FAILED');
    assert.match(refused.body.error, /401/);
  });
});

test('a model change re-embeds every stored fragment (with progress events); a failed re-embed resumes later', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-knowledge-'));
  const progress: { model: string; done: number; total: number }[] = [];
  const listener = definePlugin({ id: 'progress-listener', version: '1.0.0', setup(ctx) { ctx.on(reembedProgressed, (p) => { progress.push(p); }); } });
  try {
    const before = await server({ dimension: 48 });
    await withKnowledge(openAi(before), async (t) => {
      assert.is((await upload(t, 'long.txt', longText(600, 'glacier'))).body.fragmentCount > 64, true);
      await upload(t, 'short.txt', 'Volcanic ash grounds aircraft.');
    }, { stateDir });
    const fragments = Object.values(await storedModels(stateDir))[0]!;
    assert.ok(fragments > 64, `${fragments} fragments`);

    // The new model fails on one fragment: the re-embed stops half way and the service refuses to search a mixed corpus.
    const failing = await server({ dimension: 24, failOn: 'Line 599 ' });
    await withKnowledge(ollama(failing), async (t) => {
      const refused = await search(t, 'volcanic ash');
      assert.is(refused.status, 503);
      assert.is(refused.headers.get('retry-after'), null);
      assert.match(refused.body.error, /Embeddings could not be generated/);
    }, { stateDir });
    assert.equal(await storedModels(stateDir), { 'openai:embed-test/48': fragments - 64, 'ollama:embed-test/24': 64 }, 'finished batches are kept');

    const after = await server({ dimension: 24 });
    await withKnowledge(ollama(after), async (t) => {
      const { body } = await search(t, 'volcanic ash aircraft');
      assert.is(body.results[0].documentTitle, 'short.txt');
      assert.equal((await t.inject({ url: '/api/knowledge/stats' })).body.fragmentCount, fragments);
    }, { stateDir, plugins: [listener, knowledge] });
    assert.equal(await storedModels(stateDir), { 'ollama:embed-test/24': fragments });
    assert.equal(progress, [{ model: 'ollama:embed-test', done: fragments - 64, total: fragments - 64 }]);
    const reembedded = after.requests.slice(0, -1).flatMap((r) => r.body.input as string[]);
    assert.is(reembedded.length, fragments - 64);
    assert.ok(reembedded.some((text) => text.includes('Line 599 ')));
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('re-embedding reports progress batch by batch', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-knowledge-'));
  const progress: { model: string; done: number; total: number }[] = [];
  const listener = definePlugin({ id: 'progress-listener', version: '1.0.0', setup(ctx) { ctx.on(reembedProgressed, (p) => { progress.push(p); }); } });
  try {
    await withKnowledge(openAi(await server({ dimension: 8 })), async (t) => {
      await upload(t, 'long.txt', longText(600, 'glacier'));
    }, { stateDir });
    const total = Object.values(await storedModels(stateDir))[0]!;
    await withKnowledge(openAi(await server({ dimension: 8 }), { embeddingModel: 'embed-test-2' }), async (t) => {
      assert.is((await t.inject({ url: '/api/knowledge/stats' })).status, 200);
    }, { stateDir, plugins: [listener, knowledge] });
    const expected = [];
    for (let done = Math.min(64, total); ; done = Math.min(done + 64, total)) {
      expected.push({ model: 'openai:embed-test-2', done, total });
      if (done === total) break;
    }
    assert.ok(expected.length >= 2);
    assert.equal(progress, expected);
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('while the model loads every endpoint answers 503 with Retry-After: 5, after the family\'s configured wait', async () => {
  const gated = gatedEmbedder();
  const t = await createTestKernel({
    plugins: [knowledge, gated.plugin], config: { knowledge: { embeddingProvider: 'gated' } },
    env: { KNOWLEDGE_SERVICE_TIMEOUT_MS: '60000', DOCUMENTS_SERVICE_TIMEOUT_MS: '0' },
  });
  try {
    let waitedAnswer: number | undefined;
    const waiting = t.inject({ url: '/api/knowledge/stats' }).then((r) => { waitedAnswer = r.status; return r; });
    const id = '00000000-0000-4000-8000-000000000000';
    const requests = [
      ['GET', '/api/documents/stats'], ['GET', '/api/documents'], ['GET', `/api/documents/${id}`], ['GET', '/api/documents/search?q=x'],
      ['GET', `/api/documents/${id}/fragments`], ['DELETE', `/api/documents/${id}`],
      ['POST', '/api/documents', { filename: 'a.txt', content: 'x' }], ['POST', '/api/documents/url', { url: 'https://example.com' }],
      ['POST', '/api/documents/bulk', { documents: [{ filename: 'a.txt', content: 'x' }] }],
    ] as const;
    for (const [method, url, body] of requests) {
      const response = await t.inject({ method, url, body });
      assert.is(response.status, 503, `${method} ${url}`);
      assert.is(response.headers.get('retry-after'), '5');
      assert.equal(Object.keys(response.body).sort(), ['code', 'error']);
      assert.match(response.body.error, /still loading/);
    }
    assert.is(waitedAnswer, undefined, 'the knowledge family (60 s wait) is still waiting');
    gated.open();
    const waited = await waiting;
    assert.is(waited.status, 200);
    assert.is(waited.body.documentCount, 0);
    assert.is((await t.inject({ url: '/api/documents/stats' })).status, 200);
  } finally {
    await t.close();
  }
});

test('a configured embedder that is not registered: 503 without Retry-After until a plugin registers it', async () => {
  const t = await createTestKernel({ plugins: [knowledge], config: { knowledge: { embeddingProvider: 'gated' } } });
  try {
    const missing = await t.inject({ url: '/api/knowledge/stats' });
    assert.is(missing.status, 503);
    assert.is(missing.headers.get('retry-after'), null);
    assert.match(missing.body.error, /no embedding provider named "gated" is registered/);
    const gated = gatedEmbedder();
    gated.open();
    await t.kernel.load(gated.plugin);
    assert.is((await upload(t, 'a.txt', 'Registered later.')).status, 200);
    await t.kernel.unload('gated-embedder');
    assert.is((await t.inject({ url: '/api/knowledge/stats' })).status, 503, 'the embedder left with its plugin');
  } finally {
    await t.close();
  }
});

test.after(async () => { await Promise.all(servers.map((s) => s.close())); });
test.run();
