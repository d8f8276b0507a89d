import { agentMessages, agentResets, agentRuntime, definePlugin } from '../../sdk/index.ts';
import { registerConversationRoutes } from './routes.ts';
import { registerMessagingRoute } from './routes-messaging.ts';
import { registerStreamRoute } from './routes-stream.ts';
import { createConversations } from './service.ts';
import { createConversationStore, migrations } from './store.ts';

/** Web-chat conversations (persisted, streamed replies, greetings) and message submission for plugin routes. */
export default definePlugin({
  id: 'conversations',
  version: '0.1.0',
  description: 'Conversations with the agent: CRUD, messages, SSE replies, greetings; POST /api/messaging/submit',
  requires: [agentRuntime, agentMessages, agentResets],
  async setup(ctx) {
    const runtime = ctx.use(agentRuntime);
    const messages = ctx.use(agentMessages);
    const store = createConversationStore(await ctx.storage.sql({ migrations }));
    const conversations = createConversations(store, messages, (conversation, deleted) => {
      ctx.ws.broadcast({ type: 'conversation-updated', conversation, ...(deleted && { deleted: true }) });
    });
    // The agent wipes room messages itself on reset; the records are ours.
    ctx.track(ctx.use(agentResets).add({ name: 'conversations', reset: () => conversations.deleteAll() }));
    registerConversationRoutes(ctx, conversations, runtime, messages);
    registerStreamRoute(ctx, conversations, runtime);
    registerMessagingRoute(ctx, conversations, messages);
  },
});
