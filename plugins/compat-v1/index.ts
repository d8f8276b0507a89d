import { agentRuntime, definePlugin } from '../../sdk/index.ts';
import { registerChatCompletions } from './chat-completions.ts';
import { registerMessagesApi } from './messages-api.ts';
import { registerModels } from './models.ts';

/** `/v1` endpoints in the chat-completions and messages formats, answered by the agent. */
export default definePlugin({
  id: 'compat-v1',
  version: '0.1.0',
  description: 'OpenAI-style /v1/chat/completions and Anthropic-style /v1/messages, /v1/models',
  requires: [agentRuntime],
  setup(ctx) {
    const runtime = ctx.use(agentRuntime);
    registerModels(ctx, runtime);
    registerChatCompletions(ctx, runtime);
    registerMessagesApi(ctx, runtime);
  },
});
