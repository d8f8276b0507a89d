// The built-in offline model on its own: what it answers, which action it picks, how it streams.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ModelChunk, ModelMessage, ModelRequest } from '../../sdk/index.ts';
import { matchAction } from '../../plugins/model-offline/action-match.ts';
import { elizaReply, reflect } from '../../plugins/model-offline/eliza.ts';
import { offlineProvider } from '../../plugins/model-offline/provider.ts';
import { answer } from '../../plugins/model-offline/responder.ts';

type Context = ModelRequest['context'];
const character: Context['character'] = { name: 'Nova', bio: ['A calm helper for busy people.'], adjectives: ['calm', 'kind'], topics: ['gardening'], style: [] };
const WEATHER = {
  name: 'CHECK_WEATHER', description: 'Look up the weather forecast for a city', similes: ['weather in', 'check the weather', 'forecast for'],
  parameters: [{ name: 'city', description: 'City name', required: true }],
};
const NOTE = { name: 'REMEMBER', description: 'Save a note to long-term memory', similes: ['remember that', 'remember'], parameters: [{ name: 'text', description: 'What', required: true }] };

function request(userText: string, options: { history?: ModelMessage[]; providers?: Context['providers']; actions?: Context['actions']; purpose?: string; style?: string[]; signal?: AbortSignal } = {}): ModelRequest {
  return {
    messages: [{ role: 'system', content: 'system prompt' }, ...(options.history ?? []), { role: 'user', content: userText }],
    context: { character: { ...character, style: options.style ?? [] }, userText, providers: options.providers ?? [], actions: options.actions ?? [WEATHER, NOTE] },
    purpose: options.purpose ?? 'chat',
    signal: options.signal ?? new AbortController().signal,
  };
}

async function collect(stream: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const chunks: ModelChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

test('ELIZA reflects pronouns and reassembles the captured fragment', () => {
  assert.is(reflect('my plans for me'), 'your plans for you');
  assert.is(reflect('you are kind to me'), 'me am kind to you');
  const reply = elizaReply('I need a break from my work.', 0);
  assert.is(reply, 'Why do you need a break from your work?');
  assert.is(elizaReply('I need a break from my work.', 1), 'Would it really help you to get a break from your work?');
  assert.match(elizaReply('xyzzy plugh', 3), /\w/, 'something always comes back');
});

test('answers are deterministic for the same conversation state and vary with it', () => {
  const first = answer(request('I feel lost lately'));
  assert.equal(answer(request('I feel lost lately')), first);
  const later = answer(request('I feel lost lately', { history: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }] }));
  assert.is.not(later.text, first.text, 'a later turn picks another variant');
  assert.match(first.text, /lost lately/);
});

test('small talk comes from the character and the conversation', () => {
  assert.match(answer(request('Hello!')).text, /Nova/);
  const intro = answer(request('Who are you?')).text;
  assert.match(intro, /I'm Nova\. A calm helper for busy people\./);
  assert.match(intro, /calm and kind/);
  assert.match(answer(request('what can you do?')).text, /CHECK_WEATHER \(Look up the weather forecast for a city\)/);
  assert.match(answer(request('My name is Ada')).text, /Ada/);
  const history: ModelMessage[] = [{ role: 'user', content: 'my name is Ada Lovelace' }, { role: 'assistant', content: 'Nice to meet you' }];
  assert.is(answer(request("what's my name?", { history })).text, 'You told me your name is Ada Lovelace.');
  assert.match(answer(request("what's my name?")).text, /don't know your name/);
  assert.is(answer(request('hi there', { style: ['Write in lowercase.'] })).text, answer(request('hi there')).text.toLowerCase());
});

test('a request that starts with an action name or simile invokes it; the rest fills its parameter', () => {
  assert.equal(answer(request('Please check the weather in Paris')), { text: 'Sure, running CHECK_WEATHER.', action: { name: 'CHECK_WEATHER', params: { city: 'Paris' } } });
  assert.equal(answer(request('can you remember that the boat leaves at 9?')).action, { name: 'REMEMBER', params: { text: 'the boat leaves at 9' } });
  assert.equal(answer(request('CHECK_WEATHER city: New York, tomorrow')).action, { name: 'CHECK_WEATHER', params: { city: 'New York' } });
  const asking = answer(request('check the weather'));
  assert.is(asking.action, undefined);
  assert.match(asking.text, /CHECK_WEATHER, but I need city/);
  assert.is(answer(request('do you remember me?')).action, undefined, 'a question that merely contains a simile is not a request');
});

test('statements close to an action description invoke it; questions and vague text do not', () => {
  const describe = { name: 'SEND_INVOICE', description: 'Send the monthly invoice to a customer by email', parameters: [{ name: 'customer', description: 'Who', required: false }] };
  assert.equal(matchAction('send monthly invoice customer: ACME', [describe]), { name: 'SEND_INVOICE', params: { customer: 'ACME' }, missing: [] });
  assert.is(matchAction('did you send the monthly invoice?', [describe]), undefined);
  assert.is(matchAction('the weather is lovely and my garden thrives', [describe]), undefined);
});

test('retrieved knowledge and memory answer questions, with their source', () => {
  const knowledge = { name: 'knowledge', result: { text: 'ctx', items: [{ id: 'f1', title: 'Handbook.pdf', score: 0.71, text: 'Onboarding takes two weeks. Desks are on floor 3. The cafeteria opens at 8.' }] } };
  const reply = answer(request('Which floor are the desks on?', { providers: [knowledge] })).text;
  assert.match(reply, /Handbook\.pdf/);
  assert.match(reply, /Desks are on floor 3\./);
  const memory = { name: 'memory', result: { text: 'ctx', items: [{ id: 'm1', score: 0.71, text: 'the spare key is under the blue pot' }] } };
  assert.match(answer(request('where is the spare key?', { providers: [knowledge, memory] })).text, /remember: “the spare key is under the blue pot”/, 'memory wins a tie');
  const weak = { name: 'knowledge', result: { text: 'ctx', items: [{ id: 'f2', score: 0.31, text: 'Unrelated text.' }] } };
  assert.not.match(answer(request('I think gardening is fun', { providers: [weak] })).text, /Unrelated/, 'a statement needs a strong hit');
});

test('greeting, autonomy and character-generate purposes', () => {
  assert.match(answer(request('greet', { purpose: 'greeting' })).text, /Nova/);
  assert.match(answer(request('think', { purpose: 'autonomy' })).text, /^Reflecting on gardening\./);
  const bio = answer(request('Write a bio.\nGuidance: plant care', { purpose: 'character-generate:bio' })).text;
  assert.match(bio, /Nova is a calm and kind assistant\./);
  assert.match(bio, /plant care/);
  assert.is(answer(request('x', { purpose: 'character-generate:topics' })).text.split('\n')[0], 'gardening');
});

test('the provider streams word by word, then the action, then usage', async () => {
  const chunks = await collect(offlineProvider.stream(request('remember that tea is at four')));
  const text = chunks.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);
  assert.equal(text, ['Sure, ', 'running ', 'REMEMBER.']);
  assert.equal(chunks.at(-2), { type: 'action', name: 'REMEMBER', params: { text: 'tea is at four' } });
  const usage = chunks.at(-1) as { type: string; promptTokens: number; completionTokens: number };
  assert.is(usage.type, 'usage');
  assert.ok(usage.promptTokens > 0 && usage.completionTokens > 0);
  assert.is(offlineProvider.name, 'offline');
});

test('an aborted request stops the stream', async () => {
  const controller = new AbortController();
  const seen: string[] = [];
  let failure: unknown;
  try {
    for await (const chunk of offlineProvider.stream(request('Who are you?', { signal: controller.signal }))) {
      if (chunk.type === 'text') seen.push(chunk.text);
      if (seen.length === 2) controller.abort(new Error('client left'));
    }
  } catch (error) {
    failure = error;
  }
  assert.is(seen.length, 2);
  assert.match(String(failure), /client left/);
});

test.run();
