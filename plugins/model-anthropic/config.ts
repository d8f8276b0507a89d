import { Type, type Static } from '../../sdk/index.ts';
import { retrySetting, timeoutSetting } from '../model-common/settings.ts';

export const anthropicConfig = Type.Object({
  apiKey: Type.Optional(Type.String({ minLength: 1, secret: true, env: 'ANTHROPIC_API_KEY', description: 'Anthropic API key; the provider registers only when set' })),
  baseUrl: Type.String({ format: 'uri', default: 'https://api.anthropic.com', env: 'ANTHROPIC_BASE_URL', description: 'API root without /v1 (a proxy or gateway may stand in)' }),
  model: Type.String({ minLength: 1, default: 'claude-haiku-4-5', env: 'ANTHROPIC_MODEL' }),
  maxTokens: Type.Integer({ minimum: 1, default: 4096, env: 'ANTHROPIC_MAX_TOKENS', description: 'Reply cap when the caller sets none (Anthropic requires one)' }),
  ...timeoutSetting('ANTHROPIC'),
  ...retrySetting('ANTHROPIC'),
});

export type AnthropicConfig = Static<typeof anthropicConfig>;
