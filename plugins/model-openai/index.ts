import { agentModels, definePlugin } from '../../sdk/index.ts';
import { errorPolicy } from '../model-common/model-errors.ts';
import { offerModel } from '../model-common/register.ts';
import { openAiConfig } from './config.ts';
import { createOpenAiProvider } from './provider.ts';

export default definePlugin({
  id: 'model-openai',
  version: '0.1.0',
  description: 'Model provider for OpenAI and OpenAI-compatible endpoints (OpenRouter, Groq, DeepSeek, xAI by preset; any '
    + 'gateway, vLLM or LM Studio by base URL). Registers as the preset\'s name when OPENAI_API_KEY is set. Streams with usage. '
    + 'Base URLs are operator configuration, not user input, so they may point at loopback (local servers). ' + errorPolicy,
  optional: [agentModels],
  config: openAiConfig,
  setup(ctx) {
    if (!ctx.config.get().apiKey) return;
    offerModel(ctx, createOpenAiProvider(() => ctx.config.get()));
  },
});
