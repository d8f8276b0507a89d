// Knowledge benchmark, printed from one run. Search: the in-memory SIMD index plus the SQL lookup of
// its hits (what the service does after embedding the query) against a naive baseline that scans every
// fragment row from sql.js per query, at 10k and 100k synthetic fragments of 512 dimensions. Ingest:
// fragments/s through HTTP with the offline model, and how the time splits between the model and our
// code. Not a test: `npm test` never runs it.  Run: npm run bench:knowledge
import { availableParallelism, loadavg } from 'node:os';
import { createRequire } from 'node:module';
import initSqlJs, { type Database, type SqlValue } from 'sql.js';
import knowledge, { knowledgeEmbedders } from '../plugins/knowledge/index.ts';
import { createLocalEmbedder } from '../plugins/knowledge/embedders/local.ts';
import { createKnowledgeStore, fromBlob, migrations, toBlob } from '../plugins/knowledge/store.ts';
import { VectorIndex } from '../plugins/knowledge/vector-index.ts';
import { definePlugin, type SqlDatabase } from '../sdk/index.ts';
import { createTestKernel } from '../sdk/testing.ts';
import { cosine, random } from '../test/fixtures/knowledge/vectors.ts';

const DIMENSION = 512;
const LIMIT = 20;
// Threshold 0 makes every query return a full page of 20 hits (the most work for selection and lookup).
const THRESHOLD = 0;
const SIZES = [{ fragments: 10_000, queries: 300, baselineQueries: 30 }, { fragments: 100_000, queries: 300, baselineQueries: 10 }];
const TARGET_P50_MS = 20;
const TARGET_SPEEDUP = 10;

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** The plugin's async SQL interface over an in-memory sql.js database (no journal: only reads are timed). */
function sqlOver(db: Database): SqlDatabase {
  const all = async <T>(sql: string, params: unknown[] = []) => {
    const statement = db.prepare(sql, params as SqlValue[]);
    const rows: T[] = [];
    while (statement.step()) rows.push(statement.getAsObject() as T);
    statement.free();
    return rows;
  };
  const handle = {
    all, get: async <T>(sql: string, params: unknown[] = []) => (await all<T>(sql, params))[0],
    run: async (sql: string, params: unknown[] = []) => { db.run(sql, params as SqlValue[]); return { changes: db.getRowsModified(), lastInsertRowid: 0 }; },
  };
  return { ...handle, tx: async (fn) => fn(handle) };
}

interface Corpus { db: Database; index: VectorIndex; vectors: Float32Array[] }

async function buildCorpus(count: number, next: () => number): Promise<Corpus> {
  const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
  const db = new SQL.Database();
  for (const statement of migrations[0]!.split(/;\s*\n/).filter((s) => s.trim())) db.run(statement);
  db.run("INSERT INTO documents VALUES ('doc', 'bench.txt', 'text/plain', 0, 0, 'bench', NULL, '{}', '', ?)", [count]);
  const index = new VectorIndex('bench', DIMENSION);
  const vectors: Float32Array[] = [];
  const insert = db.prepare('INSERT INTO fragments VALUES (?, \'doc\', ?, ?, 0, \'bench\', ?, ?)');
  db.run('BEGIN');
  for (let i = 0; i < count; i++) {
    const vector = Float32Array.from({ length: DIMENSION }, next);
    vectors.push(vector);
    index.add(`f${i}`, vector);
    insert.run([`f${i}`, i, `Fragment ${i}`, DIMENSION, toBlob(vector)]);
  }
  db.run('COMMIT');
  insert.free();
  return { db, index, vectors };
}

/** A query near a stored vector, so the best hit is known. */
function queryNear(corpus: Corpus, next: () => number): { query: Float32Array; expected: string } {
  const target = Math.floor((next() + 0.5) * corpus.vectors.length);
  const query = Float32Array.from(corpus.vectors[target]!, (v) => v + next() * 0.3);
  return { query, expected: `f${target}` };
}

async function measureSearch(size: (typeof SIZES)[number], next: () => number) {
  const corpus = await buildCorpus(size.fragments, next);
  const store = createKnowledgeStore(sqlOver(corpus.db));
  const ours = async (query: Float32Array) => {
    const hits = corpus.index.search(query, LIMIT, THRESHOLD);
    const contexts = await store.contexts(hits.map((h) => h.id));
    return hits.map((h) => ({ ...contexts.get(h.id)!, similarity: h.similarity }));
  };
  const naive = async (query: Float32Array) => {
    const rows = await sqlOver(corpus.db).all<{ id: string; embedding: Uint8Array }>('SELECT id, embedding FROM fragments');
    const scored = rows.map((r) => ({ id: r.id, similarity: cosine(query, fromBlob(r.embedding)) })).filter((h) => h.similarity >= THRESHOLD);
    const hits = scored.sort((a, b) => b.similarity - a.similarity).slice(0, LIMIT);
    const contexts = await store.contexts(hits.map((h) => h.id));
    return hits.map((h) => ({ ...contexts.get(h.id)!, similarity: h.similarity }));
  };
  const time = async (search: typeof ours, queries: number) => {
    const samples: number[] = [];
    for (let i = 0; i < queries; i++) {
      const { query, expected } = queryNear(corpus, next);
      const started = performance.now();
      const hits = await search(query);
      samples.push(performance.now() - started);
      if (hits[0]?.id !== expected || hits.length !== LIMIT) throw new Error(`Wrong result: expected ${expected} first and ${LIMIT} hits`);
    }
    return { p50: percentile(samples, 50), p99: percentile(samples, 99), queries };
  };
  await time(ours, 20); // warm-up (JIT, page faults)
  const index = await time(ours, size.queries);
  const baseline = await time(naive, size.baselineQueries);
  corpus.db.close();
  return { index, baseline };
}

/** Sentences from several topics, so the model embeds real prose. */
function documents(count: number): { filename: string; content: string }[] {
  const topics = ['glaciers and the ice ages', 'baking sourdough bread', 'the history of printing', 'orbital mechanics of satellites', 'coral reef ecology', 'medieval trade routes'];
  const verbs = ['shapes', 'explains', 'changes', 'depends on', 'reveals', 'limits'];
  return Array.from({ length: count }, (_, d) => ({
    filename: `doc-${d}.txt`,
    content: Array.from({ length: 60 }, (_, s) => `In part ${s} of document ${d}, the study of ${topics[(d + s) % topics.length]} ${verbs[s % verbs.length]} what we know about ${topics[(d * 7 + s) % topics.length]}, according to the records examined.`).join(' '),
  }));
}

async function measureIngest() {
  const local = createLocalEmbedder();
  let modelMs = 0;
  const timed = definePlugin({
    id: 'bench-timed-embedder', version: '1.0.0', requires: [knowledgeEmbedders],
    setup(ctx) {
      ctx.track(ctx.use(knowledgeEmbedders).add({
        ...local, name: 'timed-local',
        async embed(texts, signal) {
          const started = performance.now();
          try { return await local.embed(texts, signal); } finally { modelMs += performance.now() - started; }
        },
      }));
    },
  });
  const t = await createTestKernel({ plugins: [knowledge, timed], config: { knowledge: { embeddingProvider: 'timed-local' } } });
  try {
    const upload = (doc: { filename: string; content: string }) => t.inject({ method: 'POST', url: '/api/knowledge/documents', body: doc });
    await upload({ filename: 'warm-up.txt', content: 'Warming up the model.' });
    modelMs = 0;
    let fragments = 0;
    const started = performance.now();
    for (const doc of documents(16)) {
      const { status, body } = await upload(doc);
      if (status !== 200) throw new Error(`Upload failed: ${status} ${JSON.stringify(body)}`);
      fragments += body.fragmentCount;
    }
    const totalMs = performance.now() - started;
    return { fragments, totalMs, modelMs };
  } finally {
    await t.close();
  }
}

console.log(`Knowledge bench on ${availableParallelism()} cores (load ${loadavg().map((l) => l.toFixed(2)).join(' ')}); ${DIMENSION} dimensions, limit ${LIMIT}, threshold ${THRESHOLD}\n`);
const next = random(42);
for (const size of SIZES) {
  const { index, baseline } = await measureSearch(size, next);
  const speedup = baseline.p50 / index.p50;
  console.log(`search, ${size.fragments.toLocaleString('en')} fragments`);
  console.log(`  index + hit lookup   p50 ${ms(index.p50)}  p99 ${ms(index.p99)}  (${index.queries} queries)`);
  console.log(`  naive sql.js scan    p50 ${ms(baseline.p50)}  p99 ${ms(baseline.p99)}  (${baseline.queries} queries)`);
  console.log(`  speed-up at p50      ${speedup.toFixed(1)}×  (target ≥ ${TARGET_SPEEDUP}×: ${speedup >= TARGET_SPEEDUP ? 'met' : 'MISSED'}; p50 target ≤ ${TARGET_P50_MS} ms: ${index.p50 <= TARGET_P50_MS ? 'met' : 'MISSED'})\n`);
}
const ingest = await measureIngest();
const ours = ingest.totalMs - ingest.modelMs;
console.log('ingest through HTTP with the offline model (Universal Sentence Encoder lite)');
console.log(`  ${ingest.fragments} fragments in ${(ingest.totalMs / 1000).toFixed(2)} s = ${(ingest.fragments / (ingest.totalMs / 1000)).toFixed(1)} fragments/s`);
console.log(`  model (embed calls)  ${(ingest.modelMs / 1000).toFixed(2)} s  ${((ingest.modelMs / ingest.totalMs) * 100).toFixed(1)}%`);
console.log(`  our code (HTTP, validation, extraction, chunking, storage, index)  ${(ours / 1000).toFixed(2)} s  ${((ours / ingest.totalMs) * 100).toFixed(1)}%`);
console.log(`  model-only ceiling   ${(ingest.fragments / (ingest.modelMs / 1000)).toFixed(1)} fragments/s; we reach ${((ingest.modelMs / ingest.totalMs) * 100).toFixed(0)}% of it`);
