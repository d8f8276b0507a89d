// The knowledge plugin with the real offline embedding model (Universal Sentence Encoder lite, loaded
// once for this file): both path families, extraction through the API, chunking, relevance, bulk,
// limits, deletion (also across a restart) and the agent's knowledge provider.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import knowledge from '../../plugins/knowledge/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import type { KernelOptions } from '../../kernel/index.ts';
import { corpus } from '../fixtures/knowledge/corpus.ts';
import { buildDocx, buildPdf, DOCX_TYPE } from '../fixtures/knowledge/documents.ts';
import { agentProvidersHost } from '../fixtures/knowledge/plugins.ts';

interface Hit { id: string; text: string; similarity: number; documentId: string; documentTitle: string; position: number }

async function withKnowledge(run: (t: TestKernel) => Promise<void>, options: KernelOptions = {}): Promise<void> {
  const t = await createTestKernel({ plugins: [knowledge], ...options });
  try { await run(t); } finally { await t.close(); }
}

const upload = (t: TestKernel, body: Record<string, unknown>, base = '/api/knowledge/documents') => t.inject({ method: 'POST', url: base, body });
const search = async (t: TestKernel, q: string, extra = '', base = '/api/knowledge') => t.inject({ url: `${base}/search?q=${encodeURIComponent(q)}${extra}` });

test('both path families serve the same documents: upload, stats, list, get, fragments, delete', () => withKnowledge(async (t) => {
  const first = await upload(t, { filename: 'cats.txt', content: 'Cats purr when they are content.', metadata: { source: 'notes', url: 'https://notes.test/cats' } });
  assert.is(first.status, 200);
  assert.equal(Object.keys(first.body).sort(), ['documentId', 'fragmentCount', 'ok']);
  assert.is(first.body.ok, true);
  assert.is(first.body.fragmentCount, 1);
  const second = await upload(t, { filename: 'dogs.txt', content: 'Dogs bark at strangers.', contentType: 'text/plain' }, '/api/documents');
  assert.is(second.status, 200);

  for (const stats of ['/api/knowledge/stats', '/api/documents/stats']) {
    const { body } = await t.inject({ url: stats });
    assert.is(body.documentCount, 2);
    assert.is(body.fragmentCount, 2);
    assert.match(body.agentId, /^[0-9a-f-]{36}$/);
  }
  for (const list of ['/api/knowledge/documents', '/api/documents']) {
    const { body } = await t.inject({ url: `${list}?limit=1&offset=1` });
    assert.equal({ total: body.total, limit: body.limit, offset: body.offset }, { total: 2, limit: 1, offset: 1 });
    assert.is(body.documents.length, 1);
    assert.is(body.documents[0].filename, 'cats.txt', 'newest first: the older document is on the second page');
    assert.equal(body.documents[0], {
      id: first.body.documentId, filename: 'cats.txt', contentType: 'text/plain', fileSize: 32, createdAt: body.documents[0].createdAt,
      fragmentCount: 1, source: 'notes', url: 'https://notes.test/cats',
    });
    assert.not.ok('content' in body.documents[0]);
  }
  const defaults = await t.inject({ url: '/api/documents' });
  assert.equal({ limit: defaults.body.limit, offset: defaults.body.offset, count: defaults.body.documents.length }, { limit: 100, offset: 0, count: 2 });

  for (const base of ['/api/knowledge/documents', '/api/documents']) {
    const { status, body } = await t.inject({ url: `${base}/${second.body.documentId}` });
    assert.is(status, 200);
    assert.equal(body.document.content, { text: 'Dogs bark at strangers.' });
    assert.equal({ source: body.document.source, url: body.document.url }, { source: 'upload', url: null });
  }
  for (const path of [`/api/knowledge/fragments/${first.body.documentId}`, `/api/documents/${first.body.documentId}/fragments`]) {
    const { body } = await t.inject({ url: path });
    assert.is(body.documentId, first.body.documentId);
    assert.is(body.count, 1);
    assert.equal(Object.keys(body.fragments[0]).sort(), ['createdAt', 'id', 'position', 'text']);
    assert.equal({ position: body.fragments[0].position, text: body.fragments[0].text }, { position: 0, text: 'Cats purr when they are content.' });
  }

  const removed = await t.inject({ method: 'DELETE', url: `/api/documents/${first.body.documentId}` });
  assert.equal(removed.body, { ok: true, deletedFragments: 1 });
  const again = await t.inject({ method: 'DELETE', url: `/api/knowledge/documents/${first.body.documentId}` });
  assert.is(again.status, 404);
  assert.equal(again.body, { error: `Document ${first.body.documentId} not found`, code: 'NOT_FOUND' });
  assert.is((await t.inject({ url: `/api/knowledge/documents/${first.body.documentId}` })).status, 404);
  assert.is((await t.inject({ url: `/api/documents/${first.body.documentId}/fragments` })).status, 404);
  assert.is((await t.inject({ url: '/api/documents/stats' })).body.documentCount, 1);
  const malformed = await t.inject({ url: '/api/documents/not-a-uuid' });
  assert.is(malformed.status, 400);
  assert.is(malformed.body.code, 'INVALID_REQUEST');
}));

test('a long document becomes overlapping ~500-token fragments, positions from 0', () => withKnowledge(async (t) => {
  const content = Array.from({ length: 90 }, (_, i) => `Fact ${i}: the river delta gains sediment every flood season.`).join(' ');
  const { body } = await upload(t, { filename: 'delta.txt', content });
  assert.ok(body.fragmentCount >= 3, `${body.fragmentCount} fragments`);
  const { fragments } = (await t.inject({ url: `/api/knowledge/fragments/${body.documentId}` })).body as { fragments: { position: number; text: string }[] };
  assert.equal(fragments.map((f) => f.position), Array.from({ length: body.fragmentCount }, (_, i) => i));
  for (const f of fragments) assert.ok(f.text.length <= 1750 && f.text.endsWith('season.'));
  const [zero, one] = [fragments[0]!.text, fragments[1]!.text];
  assert.ok(one.includes(zero.slice(zero.lastIndexOf('Fact'))), 'fragment 1 repeats the last sentence of fragment 0');
  assert.ok(zero.includes(one.slice(0, one.indexOf('season.') + 7)), 'and starts with a sentence of fragment 0');
}));

test('PDF, DOCX, HTML and Markdown uploads are extracted to text and searchable', () => withKnowledge(async (t) => {
  const pdf = await buildPdf(['Photosynthesis converts sunlight into chemical energy in chloroplasts.']);
  const docx = await buildDocx(['The volcano erupted, and lava flowed down the slopes.']);
  const uploads = [
    { filename: 'bio.pdf', contentType: 'application/pdf', content: pdf.toString('base64') },
    { filename: 'geo.docx', contentType: DOCX_TYPE, content: docx.toString('base64') },
    { filename: 'bread.html', contentType: 'text/html', content: '<h1>Baking</h1><p>Knead the <b>dough</b> and bake the loaf.</p><script>x()</script>' },
    { filename: 'coins.md', content: '## Coins\nBitcoin is a **digital** currency.' },
  ];
  const texts = ['Photosynthesis converts sunlight into chemical energy in chloroplasts.', 'The volcano erupted, and lava flowed down the slopes.',
    'Baking\n\nKnead the dough and bake the loaf.', 'Coins\nBitcoin is a digital currency.'];
  for (const [i, doc] of uploads.entries()) {
    const { status, body } = await upload(t, doc);
    assert.is(status, 200, JSON.stringify(body));
    const { document } = (await t.inject({ url: `/api/documents/${body.documentId}` })).body;
    assert.is(document.content.text, texts[i]);
  }
  const listed = (await t.inject({ url: '/api/documents' })).body.documents as { filename: string; contentType: string; fileSize: number }[];
  assert.equal(Object.fromEntries(listed.map((d) => [d.filename, d.contentType])), {
    'bio.pdf': 'application/pdf', 'geo.docx': DOCX_TYPE, 'bread.html': 'text/html', 'coins.md': 'text/markdown',
  });
  assert.is(listed.find((d) => d.filename === 'bio.pdf')!.fileSize, pdf.length);
  const hits = (await search(t, 'lava from a mountain')).body.results as Hit[];
  assert.is(hits[0]!.documentTitle, 'geo.docx');
  const bad = await upload(t, { filename: 'x.pdf', contentType: 'application/pdf', content: Buffer.from('not a pdf').toString('base64') });
  assert.is(bad.status, 400);
  assert.is(bad.body.code, 'INVALID_REQUEST');
  assert.is((await t.inject({ url: '/api/documents/stats' })).body.documentCount, 4, 'a failed upload stores nothing');
}));

test('relevance: paraphrased questions rank the right document first, in both families', () => withKnowledge(async (t) => {
  for (const doc of corpus) assert.is((await upload(t, { filename: doc.filename, content: doc.content })).status, 200);
  for (const [i, doc] of corpus.entries()) {
    const { status, body } = await search(t, doc.question, '', i % 2 ? '/api/documents' : '/api/knowledge');
    assert.is(status, 200);
    assert.is(body.query, doc.question);
    assert.is(body.threshold, 0.3);
    assert.is(body.count, body.results.length);
    const top = body.results[0] as Hit;
    assert.is(top?.documentTitle, doc.filename, `"${doc.question}" → ${JSON.stringify(body.results.map((h: Hit) => [h.documentTitle, h.similarity]))}`);
    assert.equal(Object.keys(top).sort(), ['documentId', 'documentTitle', 'id', 'position', 'similarity', 'text']);
    assert.is(top.text, doc.content);
    assert.is(top.position, 0);
    for (const hit of body.results as Hit[]) assert.ok(hit.similarity >= 0.3 && hit.similarity <= 1);
  }
  const all = (await search(t, corpus[0].question, '&threshold=0&limit=3')).body;
  assert.is(all.count, 3);
  assert.ok(all.results[0].similarity >= all.results[1].similarity && all.results[1].similarity >= all.results[2].similarity);
  assert.is((await search(t, corpus[0].question, '&threshold=1')).body.count, 0);
}));

test('search input is validated: q required and non-blank, threshold 0..1, limit positive', () => withKnowledge(async (t) => {
  for (const query of ['', '?q=', '?q=%20%20', '?q=x&threshold=1.5', '?q=x&threshold=-0.1', '?q=x&limit=0', '?q=x&limit=abc']) {
    const { status, body } = await t.inject({ url: `/api/documents/search${query}` });
    assert.is(status, 400, query);
    assert.is(body.code, 'INVALID_REQUEST');
  }
}));

test('bulk: items are independent, reported by index; ok only without failures; warnings only where present', () => withKnowledge(async (t) => {
  const { status, body } = await t.inject({
    method: 'POST', url: '/api/knowledge/documents/bulk',
    body: { documents: [
      { filename: 'a.txt', content: 'Alpha document about tides.' },
      { filename: 'missing-content.txt' },
      { filename: 'b.md', content: '# Beta\nAbout **stars**.' },
      { filename: 'c.png', contentType: 'image/png', content: 'iVBORw0KGgo=' },
      'not an object',
    ] },
  });
  assert.is(status, 200);
  assert.equal({ ok: body.ok, total: body.total, successCount: body.successCount, failureCount: body.failureCount }, { ok: false, total: 5, successCount: 2, failureCount: 3 });
  assert.equal(body.results.map((r: { index: number; ok: boolean }) => [r.index, r.ok]), [[0, true], [1, false], [2, true], [3, false], [4, false]]);
  const [a, missing, b, png, garbage] = body.results;
  assert.equal(Object.keys(a).sort(), ['documentId', 'filename', 'fragmentCount', 'index', 'ok']);
  assert.equal(b.warnings, ['contentType text/markdown was inferred from the file name']);
  assert.equal({ filename: missing.filename, code: missing.code }, { filename: 'missing-content.txt', code: 'INVALID_REQUEST' });
  assert.match(missing.error, /content/);
  assert.match(png.error, /Unsupported content type image\/png/);
  assert.is(garbage.filename, 'document-5');
  assert.is((await t.inject({ url: '/api/documents/stats' })).body.documentCount, 2);

  const allGood = await t.inject({ method: 'POST', url: '/api/documents/bulk', body: { documents: [{ filename: 'd.txt', content: 'Delta.' }] } });
  assert.equal({ ok: allGood.body.ok, failureCount: allGood.body.failureCount }, { ok: true, failureCount: 0 });
  for (const documents of [undefined, [], Array.from({ length: 101 }, (_, i) => ({ filename: `${i}.txt`, content: 'x' }))]) {
    const refused = await t.inject({ method: 'POST', url: '/api/documents/bulk', body: documents === undefined ? {} : { documents } });
    assert.is(refused.status, 400);
    assert.is(refused.body.code, 'INVALID_REQUEST');
  }
}));

test('bodies over 32 MiB are 413; text over maxDocumentChars is DOCUMENT_TOO_LARGE and stores nothing', () => withKnowledge(async (t) => {
  const huge = await upload(t, { filename: 'huge.txt', content: 'x'.repeat(33 * 1024 * 1024) });
  assert.is(huge.status, 413);
  assert.is(huge.body.code, 'PAYLOAD_TOO_LARGE');
  const hugeBulk = await t.inject({ method: 'POST', url: '/api/documents/bulk', body: { documents: [{ filename: 'h.txt', content: 'y'.repeat(33 * 1024 * 1024) }] } });
  assert.is(hugeBulk.status, 413);
  const long = await upload(t, { filename: 'long.txt', content: 'word '.repeat(30) });
  assert.is(long.status, 500);
  assert.is(long.body.code, 'DOCUMENT_TOO_LARGE');
  assert.is((await t.inject({ url: '/api/documents/stats' })).body.documentCount, 0);
}, { config: { knowledge: { maxDocumentChars: 100 } } }));

test('deleting a document removes it from search at once and after a restart', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-knowledge-'));
  const [volcano, bread] = [corpus[1], corpus[2]];
  try {
    let volcanoId = '';
    await withKnowledge(async (t) => {
      volcanoId = (await upload(t, { filename: volcano.filename, content: volcano.content })).body.documentId;
      await upload(t, { filename: bread.filename, content: bread.content });
      assert.is((await search(t, volcano.question)).body.results[0].documentId, volcanoId);
      assert.is((await t.inject({ method: 'DELETE', url: `/api/knowledge/documents/${volcanoId}` })).status, 200);
      const after = (await search(t, volcano.question, '&threshold=0')).body.results as Hit[];
      assert.equal(after.map((h) => h.documentTitle), [bread.filename]);
    }, { stateDir });
    await withKnowledge(async (t) => {
      const after = (await search(t, volcano.question, '&threshold=0')).body.results as Hit[];
      assert.equal(after.map((h) => h.documentTitle), [bread.filename], 'the index is rebuilt from storage without the deleted document');
      assert.is((await search(t, bread.question)).body.results[0].documentTitle, bread.filename);
      assert.equal((await t.inject({ url: '/api/documents/stats' })).body.documentCount, 1);
    }, { stateDir });
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('with the agent loaded, a "knowledge" context provider supplies the top fragments, also after the agent reloads', async () => {
  const host = agentProvidersHost();
  const t = await createTestKernel({ plugins: [host.plugin, knowledge], config: { knowledge: { agentFragments: 2 } } });
  try {
    for (const doc of corpus) await upload(t, { filename: doc.filename, content: doc.content });
    let provider = host.providers().get('knowledge');
    assert.ok(provider, 'the knowledge plugin registered its provider');
    const result = await provider!.get({ text: corpus[4].question, roomId: 'room' }, new AbortController().signal);
    assert.ok(result);
    assert.ok(result!.items!.length >= 1 && result!.items!.length <= 2);
    const [best] = result!.items!;
    assert.equal({ title: best!.title, text: best!.text }, { title: corpus[4].filename, text: corpus[4].content });
    assert.ok(best!.score! > 0.3 && best!.score! <= 1);
    assert.ok(result!.text.startsWith(`From "${corpus[4].filename}":\n${corpus[4].content}`));
    assert.is(await provider!.get({ text: '   ', roomId: 'room' }, new AbortController().signal), undefined);

    await t.kernel.reload('agent-providers-host');
    provider = host.providers().get('knowledge');
    assert.ok(provider, 'the reloaded agent registry holds the knowledge provider again');
    assert.is((await t.inject({ url: '/api/knowledge/stats' })).status, 200, 'the reloaded knowledge plugin has loaded its index');
    assert.is((await provider!.get({ text: corpus[4].question, roomId: 'room' }, new AbortController().signal))!.items![0]!.title, corpus[4].filename);
    await t.kernel.unload('knowledge');
    assert.not.ok(host.providers().has('knowledge'), 'unloading the knowledge plugin removes its provider');
  } finally {
    await t.close();
  }
});

test.run();
