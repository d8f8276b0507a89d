import * as assert from 'uvu/assert';
import { agentModels } from '../../sdk/index.ts';
import { createTestKernel } from '../../sdk/testing.ts';
import openAi from '../../plugins/model-openai/index.ts';
import { presetNames, resolveEndpoint } from '../../plugins/model-openai/presets.ts';
import { modelsRegistryPlugin } from '../fixtures/vendors/models-registry-plugin.ts';
import { openAiWire } from '../fixtures/vendors/openai.ts';
import { failureOf, providerContract } from '../fixtures/vendors/provider-contract.ts';
import { collect, modelRequest, PIXEL, SYSTEM_PROMPT } from '../fixtures/vendors/requests.ts';

const test = providerContract('model-openai', {
  plugin: openAi,
  wire: openAiWire,
  providerName: 'openai',
  model: 'gpt-4.1-mini',
  env: (baseUrl, key) => ({ OPENAI_API_KEY: key, OPENAI_BASE_URL: `${baseUrl}/v1` }),
  config: { maxRetries: 0 },
  lastMessage: (body) => body.messages.at(-1),
  imageMessage: {
    role: 'user',
    content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL.data}` } }],
  },
  checkRequest(received, sent) {
    assert.is(received.headers.authorization, 'Bearer test-key');
    assert.equal(received.body.messages, sent.messages);
    assert.is(received.body.messages[0].content, SYSTEM_PROMPT);
    assert.is(received.body.stream, true);
    assert.equal(received.body.stream_options, { include_usage: true });
    // A custom base URL is an OpenAI-compatible server: it gets the classic parameter.
    assert.is(received.body.max_tokens, 77);
    assert.is(received.body.temperature, 0.25);
  },
});

test('a vendor 429 passes its Retry-After on', async ({ start, server }) => {
  const { provider } = await start();
  server.mode = 429;
  const failure = await failureOf(provider);
  assert.is(failure.headers['Retry-After'], '20');
});

test('a preset names the provider and picks its default model; the base URL can still be overridden', async ({ server, kits }) => {
  const kit = await createTestKernel({
    plugins: [modelsRegistryPlugin, openAi],
    env: { OPENAI_API_KEY: 'test-key', OPENAI_PRESET: 'groq', OPENAI_BASE_URL: `${server.url}/v1` },
    config: { 'model-openai': { maxRetries: 0 } },
  });
  kits.push(kit);
  const groq = kit.kernel.resolve(agentModels)?.get('groq');
  assert.ok(groq);
  assert.is(groq!.model(), 'llama-3.1-8b-instant');
  assert.is((await collect(groq!, modelRequest())).error, undefined);
  assert.is(server.requests[0].body.model, 'llama-3.1-8b-instant');
});

test('presets map to the vendors\' base URLs; only OpenAI\'s own API gets max_completion_tokens', () => {
  assert.equal(presetNames.map((preset) => resolveEndpoint({ preset }).baseUrl), [
    'https://api.openai.com/v1', 'https://openrouter.ai/api/v1', 'https://api.groq.com/openai/v1', 'https://api.deepseek.com/v1', 'https://api.x.ai/v1',
  ]);
  assert.equal(resolveEndpoint({ preset: 'openai' }), {
    name: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4.1-mini', tokenLimit: 'max_completion_tokens',
  });
  assert.equal(resolveEndpoint({ preset: 'openai', baseUrl: 'http://127.0.0.1:1234/v1', model: 'qwen2.5-7b-instruct' }), {
    name: 'openai', label: 'OpenAI-compatible endpoint', baseUrl: 'http://127.0.0.1:1234/v1', model: 'qwen2.5-7b-instruct', tokenLimit: 'max_tokens',
  });
  assert.is(resolveEndpoint({ preset: 'deepseek' }).tokenLimit, 'max_tokens');
});

test.run();
