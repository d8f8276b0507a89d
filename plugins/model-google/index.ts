import { agentModels, definePlugin } from '../../sdk/index.ts';
import { errorPolicy } from '../model-common/model-errors.ts';
import { offerModel } from '../model-common/register.ts';
import { googleConfig, googleKey } from './config.ts';
import { createGoogleProvider } from './provider.ts';

export default definePlugin({
  id: 'model-google',
  version: '0.1.0',
  description: 'Model provider "google" (Gemini API), registered when GOOGLE_API_KEY or GEMINI_API_KEY is set. System messages '
    + 'become systemInstruction, assistant turns the "model" role. Google answers a bad key with 400 API_KEY_INVALID; it is '
    + 'reported like every rejected key. ' + errorPolicy,
  optional: [agentModels],
  config: googleConfig,
  setup(ctx) {
    if (!googleKey(ctx.config.get())) return;
    offerModel(ctx, createGoogleProvider(() => ctx.config.get()));
  },
});
