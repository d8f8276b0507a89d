// URL import through the SDK's SSRF guard: every private/loopback form is refused before any
// connection, redirects are refused, allowed pages (HTML, PDF) and video caption tracks are imported.
// Loopback servers are reachable only because the test names them in `fetchAllowedHosts`.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import diagnostics from '../../plugins/diagnostics/index.ts';
import knowledge from '../../plugins/knowledge/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import { buildPdf } from '../fixtures/knowledge/documents.ts';
import { startEmbeddingServer, type EmbeddingServer } from '../fixtures/knowledge/embedding-server.ts';
import { startWebServer, type WebServer } from '../fixtures/knowledge/web-server.ts';

const embeddings: EmbeddingServer = await startEmbeddingServer({ dimension: 32 });
const closers: (() => Promise<void>)[] = [() => embeddings.close()];
async function web(pages: Parameters<typeof startWebServer>[0]): Promise<WebServer> {
  const server = await startWebServer(pages);
  closers.push(() => server.close());
  return server;
}

async function withKnowledge(settings: Record<string, unknown>, run: (t: TestKernel) => Promise<void>): Promise<void> {
  const t = await createTestKernel({
    plugins: [diagnostics, knowledge],
    config: { knowledge: { embeddingProvider: 'openai', embeddingBaseUrl: `${embeddings.url}/v1`, ...settings } },
  });
  try { await run(t); } finally { await t.close(); }
}

const importUrl = (t: TestKernel, url: string, base = '/api/knowledge/documents') => t.inject({ method: 'POST', url: `${base}/url`, body: { url } });

/** A host name other than "localhost" that the hosts table maps to a loopback address (e.g. the machine's own name). */
function loopbackAlias(): string {
  for (const line of readFileSync('/etc/hosts', 'utf8').split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || !(address.startsWith('127.') || address === '::1')) continue;
    const alias = names.find((name) => name && name !== 'localhost' && !name.endsWith('.localhost'));
    if (alias) return alias;
  }
  throw new Error('/etc/hosts maps no name other than localhost to a loopback address');
}

test('private, loopback, link-local, metadata and mapped addresses are refused before any connection, and audited', async () => {
  const target = await web({ '/': { body: '<p>secret internal page</p>' } });
  const port = new URL(target.url).port;
  const refused = [
    `http://2130706433:${port}/`, `http://0177.0.0.1:${port}/`, `http://0x7f.0.0.1:${port}/`, `http://0x7f000001:${port}/`, `http://127.1:${port}/`,
    `http://[::1]:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:1]:${port}/`, 'http://169.254.169.254/latest/meta-data/',
    `http://localhost:${port}/`, `http://${loopbackAlias()}:${port}/`, 'http://10.0.0.1/', 'http://100.64.0.1/', 'http://192.168.1.1/',
    'http://[fe80::1]/', 'http://0.0.0.0/', 'ftp://example.com/file.txt', 'file:///etc/passwd', 'not a url', `http://user:pass@127.0.0.1:${port}/`,
  ];
  await withKnowledge({}, async (t) => {
    for (const url of refused) {
      const { status, body } = await importUrl(t, url, url.length % 2 ? '/api/knowledge/documents' : '/api/documents');
      assert.is(status, 400, url);
      assert.is(body.code, 'URL_NOT_ALLOWED', url);
    }
    assert.equal(target.hits, [], 'no request reached the loopback server');
    const audit = (await t.inject({ url: '/api/security/audit?type=policy_decision&limit=1000' })).body.entries as { summary: string; metadata: { url: string } }[];
    const audited = audit.filter((e) => e.summary.startsWith('Knowledge URL import refused')).map((e) => e.metadata.url);
    assert.equal(audited, refused);
    assert.is((await t.inject({ url: '/api/documents/stats' })).body.documentCount, 0);
  });
});

test('redirects are refused, so an allowed server cannot bounce the fetch to loopback', async () => {
  const secret = await web({ '/secret': { body: 'internal' } });
  const bouncer = await web({ '/go': { status: 302, headers: { location: `${secret.url}/secret` } } });
  await withKnowledge({ fetchAllowedHosts: bouncer.host }, async (t) => {
    const { status, body } = await importUrl(t, `${bouncer.url}/go`);
    assert.is(status, 400);
    assert.is(body.code, 'URL_NOT_ALLOWED');
    assert.match(body.error, /Redirects are not allowed/);
  });
  assert.equal(bouncer.hits, ['/go']);
  assert.equal(secret.hits, []);
});

test('an allowed page is fetched, extracted and stored with its URL; PDFs by content type; Content-Disposition names files', async () => {
  const pdf = await buildPdf(['Glaciers carve valleys as they slowly move downhill.']);
  const site = await web({
    '/articles/tides.html': { body: '<html><body><h1>Tides</h1><p>The moon pulls the oceans.</p><script>evil()</script></body></html>' },
    '/download?id=7': { headers: { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="glaciers.pdf"' }, body: pdf },
    '/missing': { status: 404, body: 'gone' },
    '/image.png': { headers: { 'content-type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
    '/huge.txt': { headers: { 'content-type': 'text/plain' }, body: Buffer.alloc(10 * 1024 * 1024 + 1, 'a') },
  });
  await withKnowledge({ fetchAllowedHosts: site.host }, async (t) => {
    const page = await importUrl(t, `${site.url}/articles/tides.html`);
    assert.is(page.status, 200, JSON.stringify(page.body));
    assert.equal({ ...page.body, documentId: 'id' }, { ok: true, documentId: 'id', fragmentCount: 1, filename: 'tides.html', contentType: 'text/html', isVideoTranscript: false });
    const { document } = (await t.inject({ url: `/api/documents/${page.body.documentId}` })).body;
    assert.equal({ text: document.content.text, source: document.source, url: document.url }, { text: 'Tides\n\nThe moon pulls the oceans.', source: 'url', url: `${site.url}/articles/tides.html` });

    const file = await importUrl(t, `${site.url}/download?id=7`, '/api/documents');
    assert.equal({ filename: file.body.filename, contentType: file.body.contentType }, { filename: 'glaciers.pdf', contentType: 'application/pdf' });
    assert.is((await t.inject({ url: `/api/documents/${file.body.documentId}` })).body.document.fileSize, pdf.length);

    const missing = await importUrl(t, `${site.url}/missing`);
    assert.equal({ status: missing.status, code: missing.body.code }, { status: 502, code: 'UPSTREAM_ERROR' });
    assert.match(missing.body.error, /answered 404/);
    const image = await importUrl(t, `${site.url}/image.png`);
    assert.equal({ status: image.status, code: image.body.code }, { status: 400, code: 'INVALID_REQUEST' });
    const huge = await importUrl(t, `${site.url}/huge.txt`);
    assert.equal({ status: huge.status, code: huge.body.code }, { status: 413, code: 'PAYLOAD_TOO_LARGE' });
    assert.is((await t.inject({ url: '/api/documents/stats' })).body.documentCount, 2);
    const fetched = (await t.inject({ url: '/api/security/audit?type=privileged_capability_invocation' })).body.entries as { summary: string }[];
    assert.ok(fetched.some((e) => e.summary === 'Knowledge URL import fetched a user-supplied URL'));
  });
});

test('a video page with a caption track is imported as its transcript; without captions, as the page', async () => {
  const site = await web({
    '/watch?v=vid42': (base) => ({
      body: '<html><head><title>Volcano documentary</title></head><body><script>var ytInitialPlayerResponse = {"captions":'
        + '{"playerCaptionsTracklistRenderer":{"captionTracks":[{"baseUrl":"' + base + '/api/timedtext?v=vid42\\u0026lang=fr","languageCode":"fr"},'
        + '{"baseUrl":"' + base + '/api/timedtext?v=vid42\\u0026lang=en","languageCode":"en"}]}}};</script></body></html>',
    }),
    '/api/timedtext?v=vid42&lang=en': {
      headers: { 'content-type': 'text/xml' },
      body: '<?xml version="1.0" encoding="utf-8"?><transcript><text start="0" dur="2">Magma rises through the crust</text>'
        + '<text start="2" dur="3">and the volcano&amp;#39;s ash cloud spreads.</text></transcript>',
    },
    '/watch?v=silent': { body: '<html><body><h1>A silent film</h1><p>No captions here.</p></body></html>' },
  });
  await withKnowledge({ fetchAllowedHosts: site.host, videoSiteHosts: '127.0.0.1' }, async (t) => {
    const video = await importUrl(t, `${site.url}/watch?v=vid42`);
    assert.is(video.status, 200, JSON.stringify(video.body));
    assert.equal({ filename: video.body.filename, contentType: video.body.contentType, isVideoTranscript: video.body.isVideoTranscript },
      { filename: 'vid42-transcript.txt', contentType: 'text/plain', isVideoTranscript: true });
    const { document } = (await t.inject({ url: `/api/knowledge/documents/${video.body.documentId}` })).body;
    assert.equal({ text: document.content.text, source: document.source }, { text: "Magma rises through the crust and the volcano's ash cloud spreads.", source: 'video' });
    assert.ok(site.hits.includes('/api/timedtext?v=vid42&lang=en'), 'the English track was fetched');

    const silent = await importUrl(t, `${site.url}/watch?v=silent`);
    assert.equal({ isVideoTranscript: silent.body.isVideoTranscript, contentType: silent.body.contentType }, { isVideoTranscript: false, contentType: 'text/html' });
    assert.is((await t.inject({ url: `/api/knowledge/documents/${silent.body.documentId}` })).body.document.content.text, 'A silent film\n\nNo captions here.');
  });
});

test.after(async () => { await Promise.all(closers.map((close) => close())); });
test.run();
