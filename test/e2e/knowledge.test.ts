// The knowledge plugin in the real server (`bin/svc.ts`, the default bundle, the real offline model):
// ingest, search, the offline agent answering from an uploaded document, URL import through the SSRF
// guard, the body limit, and deletion that holds across a restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpawnedServer } from '../helpers/server.ts';
import { corpus } from '../fixtures/knowledge/corpus.ts';
import { startWebServer, type WebServer } from '../fixtures/knowledge/web-server.ts';
import { postJson, start, stateDir, stop, stopAll } from './_helpers.ts';

interface Hit { documentTitle: string; documentId: string; similarity: number; text: string }

let site: WebServer;
const dir = stateDir();
// The model may still be loading when the first request arrives: let requests wait for it.
const env = () => ({ KNOWLEDGE_SERVICE_TIMEOUT_MS: '60000', DOCUMENTS_SERVICE_TIMEOUT_MS: '60000', SVC_FETCH_ALLOWED_HOSTS: site.host });
let server: SpawnedServer;

test.before(async () => {
  site = await startWebServer({ '/glaciers.html': { body: '<h1>Glaciers</h1><p>Glaciers carve U-shaped valleys as they creep downhill.</p>' } });
  server = await start({ stateDir: dir, env: env() });
});
test.after(async () => { await stopAll(); await site.close(); });

const json = async <T = Record<string, any>>(response: Response | Promise<Response>) => (await response).json() as Promise<T>;
const search = (q: string, family = 'knowledge') => json<{ results: Hit[] }>(fetch(`${server.url}/api/${family}/search?q=${encodeURIComponent(q)}`));

test('documents are ingested and found by meaning; the offline agent answers from one', async () => {
  const bulk = await json(postJson(`${server.url}/api/documents/bulk`, { documents: corpus.map(({ filename, content }) => ({ filename, content })) }));
  assert.equal({ ok: bulk.ok, successCount: bulk.successCount }, { ok: true, successCount: corpus.length });
  const fact = await json(postJson(`${server.url}/api/knowledge/documents`, { filename: 'kilimanjaro.txt', content: 'Mount Kilimanjaro last erupted about 150,000 years ago. Its summit crater is called Kibo.' }));
  assert.is(fact.ok, true);
  for (const doc of corpus) assert.is((await search(doc.question, 'documents')).results[0]!.documentTitle, doc.filename);

  const { conversation } = await json(postJson(`${server.url}/api/conversations`, {}));
  const reply = await json(postJson(`${server.url}/api/conversations/${conversation.id}/messages`, { text: 'When did Kilimanjaro last erupt?' }));
  assert.match(reply.text, /150,000 years ago/);
  assert.match(reply.text, /kilimanjaro\.txt/);
});

test('URL import: the allow-listed host:port is imported; the same loopback under another name is still refused', async () => {
  const imported = await postJson(`${server.url}/api/documents/url`, { url: `${site.url}/glaciers.html` });
  const body = await json(imported);
  assert.is(imported.status, 200, JSON.stringify(body));
  assert.equal({ filename: body.filename, contentType: body.contentType, isVideoTranscript: body.isVideoTranscript }, { filename: 'glaciers.html', contentType: 'text/html', isVideoTranscript: false });
  assert.is((await search('ice sheets shaping valleys')).results[0]!.documentTitle, 'glaciers.html');
  const port = new URL(site.url).port;
  for (const url of [`http://[::ffff:127.0.0.1]:${port}/glaciers.html`, `http://localhost:${port}/glaciers.html`]) {
    const refused = await postJson(`${server.url}/api/knowledge/documents/url`, { url });
    assert.is(refused.status, 400, url);
    assert.is((await json(refused)).code, 'URL_NOT_ALLOWED');
  }
  assert.equal(site.hits, ['/glaciers.html']);
});

test('an upload body over 32 MiB is 413 PAYLOAD_TOO_LARGE', async () => {
  const response = await postJson(`${server.url}/api/documents`, { filename: 'big.txt', content: 'z'.repeat(33 * 1024 * 1024) });
  assert.is(response.status, 413);
  assert.is((await json(response)).code, 'PAYLOAD_TOO_LARGE');
});

test('a deleted document leaves search at once and stays gone after a restart', async () => {
  const volcano = corpus.find((d) => d.filename === 'volcanoes.txt')!;
  const hit = (await search(volcano.question)).results[0]!;
  assert.is(hit.documentTitle, volcano.filename);
  const deleted = await json(fetch(`${server.url}/api/documents/${hit.documentId}`, { method: 'DELETE' }));
  assert.equal(deleted, { ok: true, deletedFragments: 1 });
  const titles = async () => (await search(volcano.question)).results.map((h) => h.documentTitle);
  assert.not.ok((await titles()).includes(volcano.filename));

  await stop(server);
  server = await start({ stateDir: dir, env: env() });
  assert.not.ok((await titles()).includes(volcano.filename), 'the rebuilt index does not hold the deleted document');
  const bread = corpus.find((d) => d.filename === 'bread.txt')!;
  assert.is((await search(bread.question)).results[0]!.documentTitle, bread.filename);
  const stats = await json(fetch(`${server.url}/api/documents/stats`));
  assert.equal({ documentCount: stats.documentCount }, { documentCount: corpus.length + 1 });
});

test('OpenAPI documents both families and the decisions the spec leaves open', async () => {
  const { paths } = await json<{ paths: Record<string, Record<string, { description?: string; tags: string[] }>> }>(fetch(`${server.url}/api/openapi.json`));
  for (const path of ['/api/knowledge/documents', '/api/documents', '/api/knowledge/fragments/{documentId}', '/api/documents/{documentId}/fragments', '/api/knowledge/search', '/api/documents/bulk']) {
    assert.ok(paths[path], path);
  }
  assert.match(paths['/api/documents']!.post!.description!, /Retry-After: 5/);
  assert.match(paths['/api/knowledge/documents/bulk']!.post!.description!, /ok is true only when failureCount is 0/);
  assert.equal(paths['/api/documents/search']!.get!.tags, ['documents']);
});

test.run();
