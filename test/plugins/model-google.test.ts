import * as assert from 'uvu/assert';
import google from '../../plugins/model-google/index.ts';
import { googleWire } from '../fixtures/vendors/google.ts';
import { providerContract } from '../fixtures/vendors/provider-contract.ts';
import { collect, modelRequest, PIXEL, SYSTEM_PROMPT } from '../fixtures/vendors/requests.ts';

const test = providerContract('model-google', {
  plugin: google,
  wire: googleWire,
  providerName: 'google',
  model: 'gemini-flash-latest',
  env: (baseUrl, key) => ({ GOOGLE_API_KEY: key, GOOGLE_BASE_URL: baseUrl }),
  config: { maxRetries: 0 },
  lastMessage: (body) => body.contents.at(-1),
  imageMessage: { role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: PIXEL.data } }] },
  checkRequest(received) {
    assert.match(received.url, /^\/v1beta\/models\/gemini-flash-latest:streamGenerateContent\?alt=sse/);
    assert.is(received.headers['x-goog-api-key'], 'test-key');
    assert.equal(received.body.systemInstruction.parts, [{ text: SYSTEM_PROMPT }]);
    assert.equal(received.body.contents, [
      { role: 'user', parts: [{ text: 'Hi there' }] },
      { role: 'model', parts: [{ text: 'Hello.' }] },
      { role: 'user', parts: [{ text: 'Name three colours' }] },
    ]);
    assert.equal(received.body.generationConfig, { maxOutputTokens: 77, temperature: 0.25 });
  },
});

test('GEMINI_API_KEY works as well, and GOOGLE_API_KEY wins over it', async ({ start, server }) => {
  const alias = await start({ env: { GEMINI_API_KEY: 'test-key', GOOGLE_BASE_URL: server.url } });
  assert.is((await collect(alias.provider, modelRequest())).error, undefined);
  const both = await start({ env: { GOOGLE_API_KEY: 'test-key', GEMINI_API_KEY: 'stale-key', GOOGLE_BASE_URL: server.url } });
  assert.is((await collect(both.provider, modelRequest())).error, undefined);
  assert.equal(server.requests.map((r) => r.headers['x-goog-api-key']), ['test-key', 'test-key']);
});

test.run();
