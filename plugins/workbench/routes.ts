import { agentRuntime, lifeOps, triggerDirectory, type PluginContext } from '../../sdk/index.ts';
import { buildOverview } from './overview.ts';
import { registerItemRoutes } from './routes-items.ts';
import { Overview, Task, TaskCreate, TaskPatch, Todo, TodoCreate, TodoPatch, TASK_TAG } from './schemas.ts';
import type { Collection } from './service.ts';

/** Tasks, todos and the overview. Optional services are resolved per request: plugins loaded later are seen. */
export function registerWorkbenchRoutes(ctx: PluginContext, tasks: Collection<Task>, todos: Collection<Todo>): void {
  registerItemRoutes(ctx, {
    path: '/api/workbench/tasks', one: 'task', many: 'tasks', item: Task, create: TaskCreate, patch: TaskPatch, collection: tasks,
    notes: {
      list: `Every task carries the tag ${TASK_TAG}.`,
      create: `${TASK_TAG} is always added to the tags; description defaults to '', isCompleted to false.`,
      notFound: 'TASK_NOT_FOUND',
    },
  });

  registerItemRoutes(ctx, {
    path: '/api/workbench/todos', one: 'todo', many: 'todos', item: Todo, create: TodoCreate, patch: TodoPatch, collection: todos,
    notes: {
      list: 'One store, the plugin\'s database: the spec\'s merge of a database todo service with the runtime task system (de-duplicated by name) has nothing to merge here, so names are not de-duplicated.',
      create: 'Persisted to the plugin\'s database (there is no runtime task system to fall back to). Defaults: description \'\', priority null, isUrgent false, type "task", isCompleted false, tags [].',
      notFound: 'TODO_NOT_FOUND',
    },
  });

  ctx.route({
    method: 'GET', path: '/api/workbench/overview', tags: ['workbench'], summary: 'Tasks, triggers, todos, counts, autonomy and life-ops at a glance',
    description: 'triggers come from the triggers plugin (triggersAvailable false and [] without it); lifeops is present only when a life-ops service is loaded (lifeopsAvailable); autonomy is the agent\'s ({enabled: false, thinking: false, lastEventAt: null} without an agent; lastEventAt in Unix ms). A loaded service that fails is logged and reported unavailable. activeTriggers counts enabled triggers.',
    schema: { response: { 200: Overview } },
    handler: () => buildOverview(tasks, todos, {
      triggers: ctx.tryUse(triggerDirectory), lifeOps: ctx.tryUse(lifeOps), agent: ctx.tryUse(agentRuntime),
    }, ctx.log),
  });
}
