import { agentModels, definePlugin } from '../../sdk/index.ts';
import { errorPolicy } from '../model-common/model-errors.ts';
import { offerModel } from '../model-common/register.ts';
import { anthropicConfig } from './config.ts';
import { createAnthropicProvider } from './provider.ts';

export default definePlugin({
  id: 'model-anthropic',
  version: '0.1.0',
  description: 'Model provider "anthropic" (Claude, Messages API), registered when ANTHROPIC_API_KEY is set. The system '
    + 'messages become the `system` field; the reply is capped by the caller\'s maxTokens or ANTHROPIC_MAX_TOKENS. ' + errorPolicy,
  optional: [agentModels],
  config: anthropicConfig,
  setup(ctx) {
    if (!ctx.config.get().apiKey) return;
    offerModel(ctx, createAnthropicProvider(() => ctx.config.get()));
  },
});
