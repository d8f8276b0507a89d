import type { ModelRequest } from '../../sdk/index.ts';
import { contentWords, isQuestion, stem, tokens } from './text.ts';

type ActionInfo = ModelRequest['context']['actions'][number];

export interface ActionMatch { name: string; params: Record<string, string>; missing: string[] }

/** Politeness before a request ("please", "can you", "hey,") does not count against "starts with". */
const POLITE_PREFIX = /^(?:(?:please|pls|kindly|ok|okay|hey|hi|so|now|and|also|can you|could you|would you|will you|i want you to|i'd like you to|i would like you to|go ahead and|try to)\b[\s,:]*)+/i;
/** Words that may sit between the words of a name or simile ("check THE weather"). */
const FILLERS = new Set(['the', 'a', 'an', 'some', 'my', 'me', 'for', 'this', 'our', 'please']);
const LEADING_CONNECTOR = /^(?:to|for|in|on|at|about|of|with|from)\s+/i;
/** Statements that share this much of their meaning with an action's description invoke it. */
const DESCRIPTION_THRESHOLD = 0.6;

const phraseWords = (phrase: string) => tokens(phrase.replace(/_/g, ' ')).map((t) => t.word).filter((w) => !FILLERS.has(w));

/** The offset after `phrase` when the text starts with it (fillers allowed between its words). */
function matchAtStart(text: string, phrase: string[]): number | undefined {
  const found = tokens(text);
  let i = 0;
  let j = 0;
  while (j < phrase.length && i < found.length) {
    const word = found[i]!.word;
    if (word === phrase[j] || stem(word) === stem(phrase[j]!)) { i++; j++; } else if (j > 0 && FILLERS.has(word)) i++;
    else return undefined;
  }
  return j === phrase.length && phrase.length > 0 ? found[i - 1]!.end : undefined;
}

/** `name: value`, `name=value`, `name "value"` anywhere in the text. */
function explicitParams(text: string, action: ActionInfo): { params: Record<string, string>; rest: string } {
  const params: Record<string, string> = {};
  let rest = text;
  for (const { name } of action.parameters ?? []) {
    const pattern = new RegExp(`\\b${name.replace(/[^\w]/g, '')}\\s*(?:[:=]\\s*|\\s+(?=["']))(?:"([^"]*)"|'([^']*)'|([^,;\\n]+))`, 'i');
    const match = pattern.exec(rest);
    if (!match) continue;
    params[name] = (match[1] ?? match[2] ?? match[3] ?? '').trim();
    rest = rest.slice(0, match.index) + rest.slice(match.index + match[0].length);
  }
  return { params, rest };
}

function cleanRemainder(text: string): string {
  return text.replace(/^[\s,:;.-]+/, '').replace(LEADING_CONNECTOR, '').replace(/\s*\bplease\b\s*$/i, '').replace(/[\s.!?]+$/, '').trim();
}

/** Explicit `param: value` pairs first; with `fillFromRest`, what is left fills the first missing parameter. */
function withParams(action: ActionInfo, source: string, fillFromRest: boolean): ActionMatch {
  const { params, rest } = explicitParams(source, action);
  const parameters = action.parameters ?? [];
  const target = parameters.find((p) => p.required && !params[p.name]) ?? (parameters.length === 1 && !params[parameters[0]!.name] ? parameters[0] : undefined);
  const leftover = fillFromRest ? cleanRemainder(rest) : '';
  if (target && leftover) params[target.name] = leftover;
  return { name: action.name, params, missing: parameters.filter((p) => p.required && !params[p.name]).map((p) => p.name) };
}

/**
 * Recognises a request for a registered action. Strong: the message (after politeness) starts with
 * the action's name or a simile; the rest of the message fills its first missing parameter. Weak: a
 * statement (not a question) whose meaningful words mostly appear in the action's name, similes or
 * description; only explicit `param: value` pairs fill parameters then.
 */
export function matchAction(text: string, actions: ActionInfo[]): ActionMatch | undefined {
  const request = text.trim().replace(POLITE_PREFIX, '');
  let best: { action: ActionInfo; end: number; length: number } | undefined;
  for (const action of actions) {
    for (const phrase of [action.name, ...(action.similes ?? [])].map(phraseWords)) {
      const end = matchAtStart(request, phrase);
      if (end !== undefined && (!best || phrase.length > best.length)) best = { action, end, length: phrase.length };
    }
  }
  if (best) return withParams(best.action, request.slice(best.end), true);
  if (isQuestion(text)) return undefined;
  const said = new Set(contentWords(request));
  if (said.size < 2) return undefined;
  let weak: { action: ActionInfo; score: number } | undefined;
  for (const action of actions) {
    const vocabulary = new Set(contentWords([action.name, ...(action.similes ?? []), action.description].join(' ')));
    const overlap = [...said].filter((w) => vocabulary.has(w)).length;
    const score = overlap / said.size;
    if (overlap >= 2 && score >= DESCRIPTION_THRESHOLD && (!weak || score > weak.score)) weak = { action, score };
  }
  return weak ? withParams(weak.action, request, false) : undefined;
}
