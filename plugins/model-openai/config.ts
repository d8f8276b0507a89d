import { Type, type Static } from '../../sdk/index.ts';
import { retrySetting, timeoutSetting } from '../model-common/settings.ts';
import { presetNames } from './presets.ts';

export const openAiConfig = Type.Object({
  apiKey: Type.Optional(Type.String({ minLength: 1, secret: true, env: 'OPENAI_API_KEY', description: 'API key of the selected service; the provider registers only when set (local servers accept any placeholder)' })),
  preset: Type.Enum(presetNames, { default: 'openai', env: 'OPENAI_PRESET', description: `Service: ${presetNames.join(', ')}; selects the base URL, default model and provider name` }),
  baseUrl: Type.Optional(Type.String({ format: 'uri', env: 'OPENAI_BASE_URL', description: 'Any OpenAI-compatible endpoint (gateway, vLLM, LM Studio…), ending in /v1; overrides the preset\'s' })),
  model: Type.Optional(Type.String({ minLength: 1, env: 'OPENAI_MODEL', description: 'Model id; default: the preset\'s' })),
  ...timeoutSetting('OPENAI'),
  ...retrySetting('OPENAI'),
});

export type OpenAiConfig = Static<typeof openAiConfig>;
