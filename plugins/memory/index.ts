import { agentActions, agentProviders, agentResets, definePlugin } from '../../sdk/index.ts';
import { memoryProvider, rememberAction } from './agent-extensions.ts';
import { registerMemoryRoutes } from './routes.ts';
import { createMemories } from './service.ts';
import { createMemoryStore, migrations } from './store.ts';

/** Long-term memory: notes via the API or the REMEMBER action, keyword search, and a context provider for replies. */
export default definePlugin({
  id: 'memory',
  version: '0.1.0',
  description: 'Memories: remember/search endpoints, the REMEMBER action, a memory context provider, quick answers with knowledge',
  requires: [agentActions, agentProviders, agentResets],
  async setup(ctx) {
    const memories = createMemories(createMemoryStore(await ctx.storage.sql({ migrations })));
    const providers = ctx.use(agentProviders);
    ctx.track(providers.add(memoryProvider(memories)));
    ctx.track(ctx.use(agentActions).add(rememberAction(memories)));
    ctx.track(ctx.use(agentResets).add({ name: 'memory', reset: () => memories.clear() }));
    registerMemoryRoutes(ctx, memories, () => providers.get('knowledge'));
  },
});
