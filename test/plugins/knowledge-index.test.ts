// The in-memory vector index (contiguous Float32Array in WebAssembly memory, SIMD scoring) against a
// brute-force reference in plain JavaScript.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VectorIndex } from '../../plugins/knowledge/vector-index.ts';
import { cosine, random } from '../fixtures/knowledge/vectors.ts';

const vectorOf = (next: () => number, dimension: number) => Float32Array.from({ length: dimension }, next);

function bruteForce(vectors: Map<string, Float32Array>, query: Float32Array, limit: number, threshold: number) {
  return [...vectors].map(([id, v]) => ({ id, similarity: Math.min(1, Math.max(0, cosine(v, query))) }))
    .filter((h) => h.similarity >= threshold).sort((a, b) => b.similarity - a.similarity).slice(0, limit);
}

/** Same hits in the same order; among hits clamped to similarity 0 (ties) any choice is right. */
function assertSameHits(actual: { id: string; similarity: number }[], expected: { id: string; similarity: number }[]) {
  assert.is(actual.length, expected.length);
  actual.forEach((hit, i) => assert.ok(Math.abs(hit.similarity - expected[i]!.similarity) < 1e-5, `${hit.similarity} vs ${expected[i]!.similarity}`));
  const ranked = (hits: { id: string; similarity: number }[]) => hits.filter((h) => h.similarity > 0).map((h) => h.id);
  assert.equal(ranked(actual), ranked(expected));
}

for (const dimension of [512, 37]) {
  test(`top-k with threshold and limit matches brute force (dimension ${dimension})`, () => {
    const next = random(dimension);
    const index = new VectorIndex('m', dimension, 4);
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 700; i++) {
      const v = vectorOf(next, dimension);
      vectors.set(`v${i}`, v);
      index.add(`v${i}`, v);
    }
    assert.is(index.size, 700);
    for (const [limit, threshold] of [[20, 0.3], [5, 0], [1000, 0], [3, 0.05]] as const) {
      const query = vectorOf(next, dimension);
      const hits = index.search(query, limit, threshold);
      assertSameHits(hits, bruteForce(vectors, query, limit, threshold));
      for (const hit of hits) assert.ok(hit.similarity >= threshold && hit.similarity <= 1);
    }
  });
}

test('vectors are normalized: similarity is cosine, clamped to 0..1', () => {
  const index = new VectorIndex('m', 3);
  index.add('same-direction', [10, 0, 0]);
  index.add('diagonal', [3, 3, 0]);
  index.add('opposite', [-2, 0, 0]);
  index.add('zero', [0, 0, 0]);
  const hits = index.search([0.5, 0, 0], 10, 0);
  assert.equal(hits.map((h) => h.id), ['same-direction', 'diagonal', hits[2]!.id, hits[3]!.id]);
  assert.ok(Math.abs(hits[0]!.similarity - 1) < 1e-6);
  assert.ok(Math.abs(hits[1]!.similarity - Math.SQRT1_2) < 1e-6);
  assert.equal(new Set(hits.slice(2).map((h) => h.id)), new Set(['opposite', 'zero']));
  assert.equal(hits.slice(2).map((h) => h.similarity), [0, 0]);
  assert.equal(index.search([0.5, 0, 0], 10, 0.8).map((h) => h.id), ['same-direction']);
  assert.equal(index.search([0.5, 0, 0], 0, 0), []);
});

test('removal takes a vector out at once; the row moved into its place stays findable', () => {
  const next = random(7);
  const index = new VectorIndex('m', 16, 2);
  const vectors = new Map<string, Float32Array>();
  for (let i = 0; i < 50; i++) { const v = vectorOf(next, 16); vectors.set(`v${i}`, v); index.add(`v${i}`, v); }
  for (const id of ['v0', 'v17', 'v49', 'v3']) {
    assert.ok(index.remove(id));
    vectors.delete(id);
  }
  assert.not.ok(index.remove('v17'));
  assert.is(index.size, 46);
  for (const [id, v] of vectors) {
    const [best] = index.search(v, 1, 0);
    assert.is(best!.id, id, `${id} must find itself`);
  }
  const query = vectorOf(next, 16);
  assertSameHits(index.search(query, 46, 0), bruteForce(vectors, query, 46, 0));
  index.add('v0', vectors.get('v1')!);
  assert.is(index.size, 47);
});

test('the index grows by doubling without losing vectors', () => {
  const next = random(99);
  const index = new VectorIndex('m', 512, 1);
  const stored: Float32Array[] = [];
  for (let i = 0; i < 3000; i++) { const v = vectorOf(next, 512); stored.push(v); index.add(`v${i}`, v); }
  for (const i of [0, 1, 1023, 1024, 2999]) assert.is(index.search(stored[i]!, 1, 0)[0]!.id, `v${i}`);
});

test('wrong dimensions and duplicate ids are refused', () => {
  const index = new VectorIndex('model-a', 4);
  index.add('a', [1, 2, 3, 4]);
  assert.throws(() => index.add('b', [1, 2, 3]), /dimension 3 does not fit an index of dimension 4 \(model-a\)/);
  assert.throws(() => index.add('a', [1, 2, 3, 4]), /already indexed/);
  assert.throws(() => index.search([1, 2], 5, 0), /Query of dimension 2/);
  assert.throws(() => new VectorIndex('m', 0), /Invalid vector dimension/);
});

test.run();
