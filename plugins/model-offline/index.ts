import { agentModels, definePlugin } from '../../sdk/index.ts';
import { offlineProvider } from './provider.ts';

/** The built-in offline model provider: the default when no vendor provider is registered. */
export default definePlugin({
  id: 'model-offline',
  version: '0.1.0',
  description: 'Offline model: character, retrieved knowledge and memory, action matching and ELIZA-style small talk; no key, no network',
  requires: [agentModels],
  setup(ctx) {
    ctx.track(ctx.use(agentModels).add(offlineProvider));
  },
});
