// The four vendor plugins as `npm start` bundles them (bin/svc.ts) beside the real agent runtime, configured
// only through env variables, each talking to its local wire-format server. A fixture route streams any one
// provider; /v1/chat/completions exercises the agent's own path with the selected one (SVC_MODEL_PROVIDER).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnServer, type SpawnedServer } from '../helpers/server.ts';
import { anthropicWire } from '../fixtures/vendors/anthropic.ts';
import { googleWire } from '../fixtures/vendors/google.ts';
import { ollamaWire } from '../fixtures/vendors/ollama.ts';
import { openAiWire } from '../fixtures/vendors/openai.ts';
import { hangUpAfter, startVendorServer, type VendorServer } from '../fixtures/vendors/vendor-server.ts';

let app: SpawnedServer;
let vendors: Record<'openai' | 'anthropic' | 'google' | 'ollama', VendorServer>;

test.before(async () => {
  vendors = {
    openai: await startVendorServer(openAiWire),
    anthropic: await startVendorServer(anthropicWire),
    google: await startVendorServer(googleWire),
    ollama: await startVendorServer(ollamaWire, { keyless: true }),
  };
  app = await spawnServer({
    env: {
      SVC_MODEL_PROVIDER: 'openai',
      OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${vendors.openai.url}/v1`, OPENAI_MAX_RETRIES: '0',
      ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: vendors.anthropic.url, ANTHROPIC_MAX_RETRIES: '0',
      GEMINI_API_KEY: 'test-key', GOOGLE_BASE_URL: vendors.google.url, GOOGLE_MAX_RETRIES: '0',
      OLLAMA_BASE_URL: vendors.ollama.url,
    },
    args: ['--plugin', 'test/fixtures/vendors/model-stream-route.ts'],
  });
});

test.after(async () => {
  await app?.stop();
  app?.cleanup();
  await Promise.all(Object.values(vendors ?? {}).map((vendor) => vendor.close()));
});

const post = (path: string, body: unknown, signal?: AbortSignal) => fetch(app.url + path, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal,
});

/** The `data:` payloads (and event names) of a complete SSE response. */
async function frames(response: Response): Promise<{ event?: string; data: string }[]> {
  return (await response.text()).split('\n\n').filter((frame) => frame.includes('data: ')).map((frame) => {
    const event = /^event: (.*)$/m.exec(frame)?.[1];
    return { ...(event && { event }), data: frame.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n') };
  });
}

test('each vendor streams its reply and usage through the real server and agent registry', async () => {
  for (const [name, vendor] of Object.entries(vendors)) {
    const response = await post(`/test/models/${name}/stream`, { text: 'Say hello' });
    assert.is(response.status, 200, name);
    assert.equal((await frames(response)).map((f) => JSON.parse(f.data)), [
      ...vendor.reply.map((text) => ({ type: 'text', text })),
      { type: 'usage', promptTokens: vendor.usage.prompt, completionTokens: vendor.usage.completion },
    ], name);
  }
});

test('the agent answers /v1/chat/completions with the selected vendor, sending its composed prompt', async () => {
  const response = await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'Greet me' }], stream: true });
  assert.is(response.status, 200);
  const chunks = (await frames(response)).map((f) => f.data);
  assert.is(chunks.at(-1), '[DONE]');
  const text = chunks.slice(0, -1).map((c) => JSON.parse(c).choices[0].delta.content ?? '').join('');
  assert.is(text, vendors.openai.reply.join(''));
  const sent = vendors.openai.requests.at(-1)!.body;
  assert.is(sent.messages[0].role, 'system');
  assert.equal(sent.messages.at(-1), { role: 'user', content: 'Greet me' });
});

test('a rejected key reaches the client as a clear error', async () => {
  vendors.anthropic.key = 'rotated-key';
  try {
    const [frame] = await frames(await post('/test/models/anthropic/stream', { text: 'hi' }));
    assert.is(frame.event, 'error');
    assert.is(JSON.parse(frame.data).error, 'Anthropic rejected the API key; check ANTHROPIC_API_KEY. HTTP 401: invalid x-api-key');
  } finally {
    vendors.anthropic.key = 'test-key';
  }
  vendors.openai.key = 'rotated-key';
  try {
    const response = await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }] });
    assert.is(response.status, 502);
    assert.match(((await response.json()) as { error: string }).error, /OpenAI-compatible endpoint rejected the API key; check OPENAI_API_KEY/);
  } finally {
    vendors.openai.key = 'test-key';
  }
});

test('a client that hangs up closes the request to each vendor', async () => {
  for (const [name, vendor] of Object.entries(vendors)) {
    vendor.mode = 'stall';
    const client = new AbortController();
    await hangUpAfter(await post(`/test/models/${name}/stream`, { text: 'hi' }, client.signal), vendor.reply[0], client);
    await vendor.cutOff();
    vendor.mode = 'ok';
  }
  vendors.openai.mode = 'stall';
  const client = new AbortController();
  await hangUpAfter(await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], stream: true }, client.signal), vendors.openai.reply[0], client);
  assert.is(await vendors.openai.cutOff(), vendors.openai.requests.at(-1));
  vendors.openai.mode = 'ok';
});

test.run();
