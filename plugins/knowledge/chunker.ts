/** Chunk sizes in characters; at ≈3.5 characters per token the defaults are ~500 tokens with ~100 overlap. */
export interface ChunkOptions { maxChars: number; overlapChars: number }
export const DEFAULT_CHUNKING: ChunkOptions = { maxChars: 1750, overlapChars: 350 };

interface Unit { text: string; paragraphStart: boolean }

const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * Splits text into overlapping chunks on sentence and paragraph boundaries. Sentences are packed up to
 * `maxChars`; a chunk that is already three quarters full ends at the next paragraph break; each new
 * chunk starts with the last whole sentences (up to `overlapChars`) of the previous one. A sentence
 * longer than a chunk allows is cut between words.
 */
export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNKING): string[] {
  const { maxChars, overlapChars } = options;
  const chunks: string[] = [];
  let current: Unit[] = [];
  let length = 0;
  for (const unit of units(text, maxChars - overlapChars)) {
    const full = length + unit.text.length > maxChars || (unit.paragraphStart && length >= maxChars * 0.75);
    if (current.length && full) {
      chunks.push(join(current));
      current = tail(current, overlapChars);
      length = current.reduce((sum, u) => sum + u.text.length, 0);
    }
    current.push(unit);
    length += unit.text.length;
  }
  if (current.length) chunks.push(join(current));
  return chunks.filter(Boolean);
}

/** Sentences of each paragraph (raw, so line breaks inside a paragraph survive), none longer than `limit`. */
function* units(text: string, limit: number): Generator<Unit> {
  const paragraphs = text.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n+/).map((p) => p.trim()).filter(Boolean);
  for (const paragraph of paragraphs) {
    let first = true;
    for (const { segment } of sentences.segment(paragraph)) {
      for (const piece of cut(segment, limit)) {
        yield { text: piece, paragraphStart: first };
        first = false;
      }
    }
  }
}

/** Cuts an over-long sentence between words (and a word longer than `limit` into pieces of `limit`). */
function cut(sentence: string, limit: number): string[] {
  if (sentence.length <= limit) return [sentence];
  const pieces: string[] = [];
  let piece = '';
  for (let word of sentence.match(/\S+\s*/g) ?? []) {
    while (word.length > limit) {
      if (piece) { pieces.push(piece); piece = ''; }
      pieces.push(word.slice(0, limit));
      word = word.slice(limit);
    }
    if (piece.length + word.length > limit) { pieces.push(piece); piece = ''; }
    piece += word;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/** The last whole units whose total length stays within `chars`. */
function tail(chunk: Unit[], chars: number): Unit[] {
  let length = 0;
  let start = chunk.length;
  while (start > 0 && length + chunk[start - 1]!.text.length <= chars) length += chunk[--start]!.text.length;
  return chunk.slice(start);
}

function join(chunk: Unit[]): string {
  return chunk.map((u, i) => (i > 0 && u.paragraphStart ? `\n\n${u.text}` : u.text)).join('').trim();
}
