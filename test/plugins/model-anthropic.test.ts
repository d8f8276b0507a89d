import * as assert from 'uvu/assert';
import anthropic from '../../plugins/model-anthropic/index.ts';
import { anthropicWire } from '../fixtures/vendors/anthropic.ts';
import { providerContract } from '../fixtures/vendors/provider-contract.ts';
import { collect, modelRequest, PIXEL, SYSTEM_PROMPT } from '../fixtures/vendors/requests.ts';

const test = providerContract('model-anthropic', {
  plugin: anthropic,
  wire: anthropicWire,
  providerName: 'anthropic',
  model: 'claude-haiku-4-5',
  env: (baseUrl, key) => ({ ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: baseUrl }),
  config: { maxRetries: 0 },
  lastMessage: (body) => body.messages.at(-1),
  imageMessage: {
    role: 'user',
    content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL.data } }, { type: 'text', text: 'What is this?' }],
  },
  checkRequest(received, sent) {
    assert.ok(received.headers['anthropic-version'], 'anthropic-version header');
    assert.is(received.body.model, 'claude-haiku-4-5');
    assert.is(received.body.system, SYSTEM_PROMPT);
    assert.equal(received.body.messages, sent.messages.slice(1));
    assert.is(received.body.max_tokens, 77);
    assert.is(received.body.temperature, 0.25);
    assert.is(received.body.stream, true);
  },
});

test('without a caller limit the configured max_tokens is sent (Anthropic requires one)', async ({ start, server }) => {
  const { provider } = await start({ config: { maxTokens: 321 } });
  await collect(provider, modelRequest());
  assert.is(server.requests[0].body.max_tokens, 321);
});

test.run();
