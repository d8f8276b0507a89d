/** Small deterministic text helpers for the offline model. */

const STOPWORDS = new Set(('a an the and or but if then so of to in on at by for with from about as into over under is are was were be been being am '
  + 'i me my mine you your yours we us our they them their he him his she her it its this that these those there here what which who whom '
  + 'whose when where why how do does did done have has had can could would should will shall may might must not no yes please just '
  + 'some any all more most very really also too up down out again once only own same than s t don now let lets let\'s want like get got').split(/\s+/));

/** Lower-case word tokens with their end offsets in `text`. */
export function tokens(text: string): { word: string; end: number }[] {
  return [...text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)].map((m) => ({ word: m[0].toLowerCase().replace(/’/g, "'"), end: m.index! + m[0].length }));
}

export const words = (text: string): string[] => tokens(text).map((t) => t.word);

/** A crude stem, enough to match "notes"/"note", "checking"/"check". */
export const stem = (word: string): string => (word.length > 4 ? word.replace(/(?:ing|ed|es|s)$/, '') : word);

/** Stemmed words that carry meaning (no stop words). */
export const contentWords = (text: string): string[] => words(text.replace(/_/g, ' ')).filter((w) => !STOPWORDS.has(w)).map(stem);

/** FNV-1a: the same text always picks the same variant. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export const pick = <T>(items: readonly T[], seed: number): T => items[seed % items.length]!;

const QUESTION_START = /^(?:what|who|whom|whose|where|when|why|how|which|is|are|was|were|do|does|did|can|could|should|would|will|tell me|explain|describe|any)\b/i;
export const isQuestion = (text: string): boolean => /\?\s*$/.test(text) || QUESTION_START.test(text.trim());

/** Cuts at a word boundary, adding an ellipsis when something was cut. */
export function truncate(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max / 2)).replace(/[\s,;:.]+$/, '')}…`;
}

/** "a, b and c". */
export function listing(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
