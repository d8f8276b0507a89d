import * as assert from 'uvu/assert';
import ollama from '../../plugins/model-ollama/index.ts';
import { ollamaWire } from '../fixtures/vendors/ollama.ts';
import { providerContract } from '../fixtures/vendors/provider-contract.ts';
import { collect, modelRequest, PIXEL } from '../fixtures/vendors/requests.ts';

const test = providerContract('model-ollama', {
  plugin: ollama,
  wire: ollamaWire,
  providerName: 'ollama',
  model: 'llama3.2',
  // The contract's key checks run against an authenticating Ollama (ollama.com or a proxy).
  env: (baseUrl, key) => ({ OLLAMA_BASE_URL: baseUrl, OLLAMA_API_KEY: key }),
  lastMessage: (body) => body.messages.at(-1),
  imageMessage: { role: 'user', content: 'What is this?', images: [PIXEL.data] },
  checkRequest(received, sent) {
    assert.is(received.headers.authorization, 'Bearer test-key');
    assert.is(received.body.model, 'llama3.2');
    assert.equal(received.body.messages, sent.messages);
    assert.is(received.body.stream, true);
    assert.equal(received.body.options, { num_predict: 77, temperature: 0.25 });
  },
});

test('a local runtime: OLLAMA_MODEL alone registers it, no key is sent', async ({ start, server }) => {
  server.key = undefined;
  const { provider } = await start({ env: { OLLAMA_MODEL: 'qwen3:0.6b' }, config: { baseUrl: server.url } });
  assert.is(provider.model(), 'qwen3:0.6b');
  const { chunks, error } = await collect(provider, modelRequest());
  assert.is(error, undefined);
  assert.is(chunks.length, server.reply.length + 1);
  assert.is(server.requests[0].body.model, 'qwen3:0.6b');
  assert.is(server.requests[0].headers.authorization, undefined);
});

test.run();
