// Text handling of the knowledge plugin, without the embedding model: chunking, Markdown reduction,
// extraction of real PDF/DOCX/HTML files, and caption tracks of video pages.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../sdk/index.ts';
import { chunkText } from '../../plugins/knowledge/chunker.ts';
import { extractDocument, resolveContentType } from '../../plugins/knowledge/extract.ts';
import { markdownToText } from '../../plugins/knowledge/markdown.ts';
import { captionText, captionTrackUrl, videoId, watchPageUrl } from '../../plugins/knowledge/video-captions.ts';
import { buildDocx, buildPdf, DOCX_TYPE } from '../fixtures/knowledge/documents.ts';

const sentence = (i: number, topic: string) => `Sentence ${i} is about ${topic} and carries a few more words to be realistic.`;
const paragraph = (n: number, topic: string) => Array.from({ length: n }, (_, i) => sentence(i, topic)).join(' ');

async function rejects(promise: Promise<unknown>, status: number, pattern: RegExp): Promise<void> {
  try { await promise; } catch (error) {
    assert.ok(HttpError.is(error), `expected an HttpError, got ${error}`);
    assert.is(error.status, status);
    assert.match(error.message, pattern);
    return;
  }
  assert.unreachable('expected a rejection');
}

test('chunking: short text is one chunk; blank text none', () => {
  assert.equal(chunkText('Just one sentence.'), ['Just one sentence.']);
  assert.equal(chunkText('  \n\n \t '), []);
});

test('chunking: ~500-token chunks end on sentence boundaries, overlap by whole sentences, keep order', () => {
  const text = paragraph(80, 'rivers');
  const chunks = chunkText(text);
  assert.ok(chunks.length >= 4, `${chunks.length} chunks`);
  for (const chunk of chunks) {
    assert.ok(chunk.length <= 1750, `chunk of ${chunk.length} chars`);
    assert.ok(chunk.length >= 1000, `chunk of only ${chunk.length} chars`);
    assert.match(chunk, /^Sentence \d+ .*realistic\.$/s);
  }
  for (let i = 1; i < chunks.length; i++) {
    const first = /^Sentence (\d+)/.exec(chunks[i]!)![1];
    const previousLast = [...chunks[i - 1]!.matchAll(/Sentence (\d+)/g)].pop()![1];
    const overlap = Number(previousLast) - Number(first) + 1;
    assert.ok(overlap >= 1, `chunk ${i} does not overlap the previous one`);
    assert.ok(chunks[i - 1]!.includes(chunks[i]!.slice(0, chunks[i]!.indexOf('realistic.') + 10)), 'the overlap repeats whole sentences');
    assert.ok(overlap * sentence(10, 'rivers').length <= 350 + 80, 'overlap stays near 100 tokens');
  }
  const covered = new Set(chunks.flatMap((c) => [...c.matchAll(/Sentence (\d+)/g)].map((m) => Number(m[1]))));
  assert.is(covered.size, 80);
});

test('chunking: a nearly full chunk ends at a paragraph break; paragraphs keep their blank line', () => {
  const text = `${paragraph(19, 'lakes')}\n\n${paragraph(3, 'deserts')}`;
  assert.ok(text.length < 1750 && paragraph(19, 'lakes').length > 1750 * 0.75, 'only the paragraph rule can split this text');
  const chunks = chunkText(text);
  assert.is(chunks.length, 2);
  assert.ok(!chunks[0]!.includes('deserts'), 'the first chunk stops at the paragraph');
  assert.ok(chunks[1]!.includes('realistic.\n\nSentence 0 is about deserts'), 'the overlap carries the paragraph break');
});

test('chunking: custom sizes, and an over-long word is cut without losing characters', () => {
  const word = 'x'.repeat(250);
  const chunks = chunkText(`Start. ${word} end.`, { maxChars: 100, overlapChars: 20 });
  for (const chunk of chunks) assert.ok(chunk.length <= 100);
  assert.is(chunks.join('').replace(/[^x]/g, '').length >= 250, true);
});

test('markdown is reduced to its text', () => {
  const text = markdownToText([
    '# Title #', 'Some **bold**, *em*, _under_, snake_case_name, `code` and ~~gone~~ words.',
    'A [link](http://x.test "t"), ![alt text](i.png), <https://a.test> and [ref][1].', '', '[1]: http://ref.test',
    '> quoted', '- item', '* [x] done', '1. numbered', '---', '| a | b |', '|---|:-:|', '| 1 | 2 |', '',
    '```js', 'const x = **not emphasis**;', '```', 'Setext', '======', '<b>html</b> \\*literal\\* 2*3*4',
  ].join('\n'));
  assert.is(text, [
    'Title', 'Some bold, em, under, snake_case_name, code and gone words.',
    'A link, alt text, https://a.test and ref.', '',
    'quoted', 'item', 'done', 'numbered', 'a  b', '1  2', '', 'const x = **not emphasis**;', 'Setext', 'html *literal* 2*3*4',
  ].join('\n'));
});

test('content types: parameters stripped, charset read, inferred from the file name when absent or octet-stream', () => {
  assert.equal(resolveContentType('Text/HTML; charset="ISO-8859-1"', 'x'), { type: 'text/html', charset: 'ISO-8859-1', inferred: false });
  assert.equal(resolveContentType(undefined, 'Report.PDF'), { type: 'application/pdf', charset: undefined, inferred: true });
  assert.equal(resolveContentType('application/octet-stream', 'a.docx').type, DOCX_TYPE);
  assert.equal(resolveContentType(undefined, 'noextension').type, 'text/plain');
});

test('PDF (base64) is extracted page by page; pages without text are reported', async () => {
  const pdf = await buildPdf(['Photosynthesis turns light into sugar.', '', 'Chlorophyll is green.']);
  const doc = await extractDocument({ content: pdf.toString('base64'), filename: 'bio.pdf', contentType: 'application/pdf' });
  assert.is(doc.text, 'Photosynthesis turns light into sugar.\n\nChlorophyll is green.');
  assert.is(doc.contentType, 'application/pdf');
  assert.is(doc.fileSize, pdf.length);
  assert.equal(doc.warnings, ['1 of 3 PDF pages have no extractable text (scanned images are not read)']);
  const fromBytes = await extractDocument({ content: pdf, filename: 'bio.pdf' });
  assert.is(fromBytes.text, doc.text);
  assert.ok(fromBytes.warnings.includes('contentType application/pdf was inferred from the file name'));
});

test('DOCX, HTML, Markdown and text are extracted', async () => {
  const docx = await buildDocx(['Volcanoes erupt molten rock.', 'Ash clouds ground aircraft.']);
  const word = await extractDocument({ content: docx.toString('base64'), filename: 'geo.docx', contentType: DOCX_TYPE });
  assert.is(word.text, 'Volcanoes erupt molten rock.\n\nAsh clouds ground aircraft.');
  assert.equal(word.warnings, []);

  const html = await extractDocument({
    filename: 'page.html', contentType: 'text/html',
    content: '<html><head><title>T</title><style>p{color:red}</style><script>var secret = 1</script></head>'
      + '<body><h1>Bread</h1><p>Knead the <a href="http://x.test/dough">dough</a> <img src="i.png" alt="pic"> well.</p></body></html>',
  });
  assert.is(html.text, 'Bread\n\nKnead the dough well.');

  const markdown = await extractDocument({ content: '# Coins\nBitcoin is **digital**.', filename: 'c.md' });
  assert.is(markdown.text, 'Coins\nBitcoin is digital.');
  assert.is(markdown.contentType, 'text/markdown');

  const latin1 = await extractDocument({ content: Buffer.from('caf\xe9', 'latin1'), filename: 'x', contentType: 'text/plain; charset=iso-8859-1' });
  assert.is(latin1.text, 'café');
  assert.is(latin1.fileSize, 4);
});

test('client mistakes are 400: unsupported type, bad base64, unreadable file, no text', async () => {
  await rejects(extractDocument({ content: 'AAAA', filename: 'p.png', contentType: 'image/png' }), 400, /Unsupported content type image\/png/);
  await rejects(extractDocument({ content: 'not base64!', filename: 'a.pdf', contentType: 'application/pdf' }), 400, /must be base64/);
  await rejects(extractDocument({ content: Buffer.from('plain words').toString('base64'), filename: 'a.pdf' }), 400, /Cannot read a\.pdf as application\/pdf/);
  await rejects(extractDocument({ content: Buffer.from('nope').toString('base64'), filename: 'a.docx' }), 400, /Cannot read a\.docx/);
  await rejects(extractDocument({ content: '<script>only()</script>', filename: 'a.html' }), 400, /No text could be extracted from a\.html/);
});

test('video pages: the English human-made caption track is chosen and resolved', () => {
  const page = new URL('https://www.youtube.com/watch?v=abc123');
  const html = '<script>var ytInitialPlayerResponse = {"captions":{"playerCaptionsTracklistRenderer":{"captionTracks":['
    + '{"baseUrl":"/api/timedtext?v=abc123\\u0026lang=de","languageCode":"de"},'
    + '{"baseUrl":"/api/timedtext?v=abc123\\u0026lang=en\\u0026kind=asr","languageCode":"en","kind":"asr","name":{"simpleText":"a [b] \\"c\\""}},'
    + '{"baseUrl":"https://www.youtube.com/api/timedtext?v=abc123\\u0026lang=en","languageCode":"en"}]}}};</script>';
  assert.is(captionTrackUrl(html, page)?.href, 'https://www.youtube.com/api/timedtext?v=abc123&lang=en');
  const onlyAuto = html.replace(',{"baseUrl":"https://www.youtube.com/api/timedtext?v=abc123\\u0026lang=en","languageCode":"en"}', '');
  assert.is(captionTrackUrl(onlyAuto, page)?.href, 'https://www.youtube.com/api/timedtext?v=abc123&lang=en&kind=asr');
  assert.is(captionTrackUrl('<html>no captions</html>', page), undefined);
  assert.is(captionTrackUrl('"captionTracks":[{"baseUrl": broken', page), undefined);
});

test('timed text in both formats becomes plain text; short links point at the watch page', () => {
  const classic = '<?xml version="1.0"?><transcript><text start="0" dur="1.2">Hello &amp;amp; welcome</text>'
    + '<text start="1.2" dur="2">it&amp;#39;s   <font color="#fff">lava</font></text><text start="3" dur="1"></text></transcript>';
  assert.is(captionText(classic), "Hello & welcome it's lava");
  const format3 = '<timedtext format="3"><body><p t="0" d="1500">Magma <s>rises</s></p><p t="1500" d="900">&quot;fast&quot;</p></body></timedtext>';
  assert.is(captionText(format3), 'Magma rises "fast"');
  assert.is(watchPageUrl(new URL('https://youtu.be/XyZ_12')).href, 'https://www.youtube.com/watch?v=XyZ_12');
  assert.is(videoId(new URL('https://www.youtube.com/watch?v=XyZ_12&t=3')), 'XyZ_12');
  assert.is(videoId(new URL('https://www.youtube.com/shorts/Short1')), 'Short1');
});

test.run();
