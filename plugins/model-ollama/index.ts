import { agentModels, definePlugin } from '../../sdk/index.ts';
import { errorPolicy } from '../model-common/model-errors.ts';
import { offerModel } from '../model-common/register.ts';
import { ollamaConfig } from './config.ts';
import { createOllamaProvider } from './provider.ts';

export default definePlugin({
  id: 'model-ollama',
  version: '0.1.0',
  description: 'Model provider "ollama" for the local model runtime, registered when OLLAMA_MODEL or OLLAMA_BASE_URL is set '
    + '(there is no key to detect it by). The base URL is operator configuration and is usually loopback. ' + errorPolicy,
  optional: [agentModels],
  config: ollamaConfig,
  setup(ctx) {
    const { baseUrl, model } = ctx.config.get();
    if (baseUrl === undefined && model === undefined) return;
    offerModel(ctx, createOllamaProvider(() => ctx.config.get()));
  },
});
