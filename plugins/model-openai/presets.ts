/**
 * Named OpenAI-compatible services: each maps to a base URL and a default model. `tokenLimit` is the
 * parameter that caps the reply: OpenAI's own API wants `max_completion_tokens` (its reasoning models
 * refuse `max_tokens`); compatible servers know `max_tokens`.
 */
export const presets = {
  openai: { label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4.1-mini', tokenLimit: 'max_completion_tokens' },
  openrouter: { label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', model: 'openai/gpt-4.1-mini', tokenLimit: 'max_tokens' },
  groq: { label: 'Groq', baseUrl: 'https://api.groq.com/openai/v1', model: 'llama-3.1-8b-instant', tokenLimit: 'max_tokens' },
  deepseek: { label: 'DeepSeek', baseUrl: 'https://api.deepseek.com/v1', model: 'deepseek-chat', tokenLimit: 'max_tokens' },
  xai: { label: 'xAI', baseUrl: 'https://api.x.ai/v1', model: 'grok-3-mini', tokenLimit: 'max_tokens' },
} as const;

export type PresetName = keyof typeof presets;
export const presetNames = Object.keys(presets) as PresetName[];

export interface Endpoint {
  /** Provider name in the model registry: the preset's name. */
  name: PresetName;
  label: string;
  baseUrl: string;
  model: string;
  tokenLimit: 'max_tokens' | 'max_completion_tokens';
}

/** The endpoint a configuration designates; an explicit base URL or model wins over the preset's. */
export function resolveEndpoint(config: { preset: PresetName; baseUrl?: string; model?: string }): Endpoint {
  const preset = presets[config.preset];
  const custom = config.baseUrl !== undefined && config.baseUrl !== preset.baseUrl;
  return {
    name: config.preset,
    label: custom ? 'OpenAI-compatible endpoint' : preset.label,
    baseUrl: config.baseUrl ?? preset.baseUrl,
    model: config.model ?? preset.model,
    tokenLimit: custom ? 'max_tokens' : preset.tokenLimit,
  };
}
