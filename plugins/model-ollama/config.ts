import { Type, type Static } from '../../sdk/index.ts';
import { timeoutSetting } from '../model-common/settings.ts';

export const ollamaConfig = Type.Object({
  baseUrl: Type.Optional(Type.String({ format: 'uri', env: 'OLLAMA_BASE_URL', description: 'Ollama server; default http://127.0.0.1:11434' })),
  model: Type.Optional(Type.String({ minLength: 1, env: 'OLLAMA_MODEL', description: 'A model pulled into Ollama; default llama3.2' })),
  apiKey: Type.Optional(Type.String({ minLength: 1, secret: true, env: 'OLLAMA_API_KEY', description: 'Bearer token for ollama.com or an authenticating proxy; a local Ollama needs none' })),
  ...timeoutSetting('OLLAMA'),
});

export type OllamaConfig = Static<typeof ollamaConfig>;

export const OLLAMA_DEFAULT_URL = 'http://127.0.0.1:11434';
export const OLLAMA_DEFAULT_MODEL = 'llama3.2';
