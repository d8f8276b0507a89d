import { Type, type Static } from '../../sdk/index.ts';
import { retrySetting, timeoutSetting } from '../model-common/settings.ts';

export const googleConfig = Type.Object({
  apiKey: Type.Optional(Type.String({ minLength: 1, secret: true, env: 'GOOGLE_API_KEY', description: 'Gemini API key; the provider registers only when this or geminiApiKey is set' })),
  geminiApiKey: Type.Optional(Type.String({ minLength: 1, secret: true, env: 'GEMINI_API_KEY', description: 'The same key under its other usual name; GOOGLE_API_KEY wins when both are set' })),
  baseUrl: Type.String({ format: 'uri', default: 'https://generativelanguage.googleapis.com', env: 'GOOGLE_BASE_URL', description: 'API root without the version (a proxy or gateway may stand in)' }),
  model: Type.String({ minLength: 1, default: 'gemini-flash-latest', env: 'GOOGLE_MODEL' }),
  ...timeoutSetting('GOOGLE'),
  ...retrySetting('GOOGLE'),
});

export type GoogleConfig = Static<typeof googleConfig>;

export const googleKey = (config: GoogleConfig): string | undefined => config.apiKey ?? config.geminiApiKey;
