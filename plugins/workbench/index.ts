import { agentResets, agentRuntime, definePlugin, lifeOps, triggerDirectory } from '../../sdk/index.ts';
import { registerWorkbenchRoutes } from './routes.ts';
import { createTasks, createTodos } from './service.ts';
import { createWorkbenchStore, migrations } from './store.ts';

/** Workbench tasks and todos (persisted) and the overview that joins them with triggers, autonomy and life-ops. */
export default definePlugin({
  id: 'workbench',
  version: '0.1.0',
  description: 'Workbench: tasks, todos, and an overview with triggers, agent autonomy and life-ops when those are loaded',
  optional: [triggerDirectory, lifeOps, agentRuntime, agentResets],
  async setup(ctx) {
    const store = createWorkbenchStore(await ctx.storage.sql({ migrations }));
    const tasks = createTasks(store.tasks);
    const todos = createTodos(store.todos);
    registerWorkbenchRoutes(ctx, tasks, todos);
    // POST /api/agent/reset wipes the agent's workspace: its tasks and todos go with it.
    const resets = ctx.tryUse(agentResets);
    if (resets) ctx.track(resets.add({ name: 'workbench', reset: async () => { await tasks.clear(); await todos.clear(); } }));
  },
});
