import { createScorer, SIMD_FLOATS } from './simd-dot.ts';

export interface IndexHit { id: string; similarity: number }

const PAGE_BYTES = 65536;
const FLOAT_BYTES = 4;

/**
 * The vectors of one embedding model, normalized (so cosine similarity is a dot product) and kept in
 * one contiguous Float32Array that grows by doubling. It lives in WebAssembly memory so that the SIMD
 * scorer reads it in place. Layout: [query row | `capacity` vector rows | `capacity` scores].
 * Removal moves the last row into the hole, so rows stay dense.
 */
export class VectorIndex {
  /** Floats per row: the dimension padded to the scorer's step. */
  readonly stride: number;
  private readonly scorer = createScorer();
  private floats = new Float32Array(this.scorer.memory.buffer);
  private capacity = 0;
  private readonly ids: string[] = [];
  private readonly slots = new Map<string, number>();

  constructor(readonly model: string, readonly dimension: number, initialCapacity = 1024) {
    if (!Number.isInteger(dimension) || dimension < 1) throw new Error(`Invalid vector dimension ${dimension}`);
    this.stride = Math.ceil(dimension / SIMD_FLOATS) * SIMD_FLOATS;
    this.grow(initialCapacity);
  }

  get size(): number { return this.ids.length; }

  add(id: string, vector: ArrayLike<number>): void {
    if (vector.length !== this.dimension) throw new Error(`Vector of dimension ${vector.length} does not fit an index of dimension ${this.dimension} (${this.model})`);
    if (this.slots.has(id)) throw new Error(`Vector ${id} is already indexed`);
    if (this.ids.length === this.capacity) this.grow(this.capacity * 2);
    const slot = this.ids.length;
    this.write(this.stride * (1 + slot), vector);
    this.ids.push(id);
    this.slots.set(id, slot);
  }

  remove(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    const last = this.ids.length - 1;
    if (slot !== last) {
      const from = this.stride * (1 + last);
      this.floats.copyWithin(this.stride * (1 + slot), from, from + this.stride);
      this.ids[slot] = this.ids[last]!;
      this.slots.set(this.ids[slot]!, slot);
    }
    this.ids.pop();
    this.slots.delete(id);
    return true;
  }

  /**
   * The `limit` most similar vectors with similarity (cosine clamped to 0..1) at least `threshold`,
   * best first. Threshold and limit are applied while selecting, so no full sort happens.
   */
  search(query: ArrayLike<number>, limit: number, threshold: number): IndexHit[] {
    if (query.length !== this.dimension) throw new Error(`Query of dimension ${query.length} does not fit an index of dimension ${this.dimension} (${this.model})`);
    const count = this.ids.length;
    if (!count || limit < 1) return [];
    this.write(0, query);
    const scoresAt = this.stride * (1 + this.capacity);
    this.scorer.dots(0, this.stride * FLOAT_BYTES, count, this.stride * FLOAT_BYTES, scoresAt * FLOAT_BYTES);
    return topK(this.floats.subarray(scoresAt, scoresAt + count), limit, threshold)
      .map(({ slot, similarity }) => ({ id: this.ids[slot]!, similarity }));
  }

  /** Writes `vector` normalized, with zero padding, at float offset `at`. */
  private write(at: number, vector: ArrayLike<number>): void {
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let i = 0; i < vector.length; i++) this.floats[at + i] = vector[i]! * scale;
    this.floats.fill(0, at + vector.length, at + this.stride);
  }

  private grow(capacity: number): void {
    const bytes = (this.stride * (1 + capacity) + capacity) * FLOAT_BYTES;
    const { memory } = this.scorer;
    const pages = Math.ceil(bytes / PAGE_BYTES) - memory.buffer.byteLength / PAGE_BYTES;
    if (pages > 0) memory.grow(pages);
    this.floats = new Float32Array(memory.buffer);
    this.capacity = capacity;
  }
}

interface Candidate { slot: number; similarity: number }

/** Keeps the best `limit` scores at or above `threshold` in a min-heap; returns them best first. */
function topK(scores: Float32Array, limit: number, threshold: number): Candidate[] {
  const heap: Candidate[] = [];
  for (let slot = 0; slot < scores.length; slot++) {
    const raw = scores[slot]!;
    const similarity = raw > 1 ? 1 : raw < 0 ? 0 : raw;
    if (similarity < threshold) continue;
    if (heap.length < limit) {
      heap.push({ slot, similarity });
      siftUp(heap, heap.length - 1);
    } else if (similarity > heap[0]!.similarity) {
      heap[0] = { slot, similarity };
      siftDown(heap, 0);
    }
  }
  return heap.sort((a, b) => b.similarity - a.similarity);
}

function siftUp(heap: Candidate[], i: number): void {
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]!.similarity <= heap[i]!.similarity) return;
    [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
    i = parent;
  }
}

function siftDown(heap: Candidate[], i: number): void {
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let smallest = i;
    if (left < heap.length && heap[left]!.similarity < heap[smallest]!.similarity) smallest = left;
    if (right < heap.length && heap[right]!.similarity < heap[smallest]!.similarity) smallest = right;
    if (smallest === i) return;
    [heap[smallest], heap[i]] = [heap[i]!, heap[smallest]!];
    i = smallest;
  }
}
