import type { AgentRuntime, LifeOpsService, Logger, TriggerDirectory } from '../../sdk/index.ts';
import type { Overview, Task, Todo } from './schemas.ts';
import type { Collection } from './service.ts';

/** The optional services as resolved for one request (plugins may come and go between requests). */
export interface OverviewSources {
  triggers: TriggerDirectory | undefined;
  lifeOps: LifeOpsService | undefined;
  agent: AgentRuntime | undefined;
}

const NO_AUTONOMY = { enabled: false, thinking: false, lastEventAt: null };

/**
 * The workbench at a glance. An optional service that is missing, or that fails, is reported unavailable
 * (empty list, no block) and the failure logged: one broken plugin must not take the dashboard down.
 */
export async function buildOverview(tasks: Collection<Task>, todos: Collection<Todo>, sources: OverviewSources, log: Logger): Promise<Overview> {
  const attempt = async <T>(what: string, read: (() => Promise<T>) | undefined): Promise<T | undefined> => {
    try {
      return await read?.();
    } catch (error) {
      log.warn(`Workbench overview: ${what} unavailable: ${(error as Error).message}`);
      return undefined;
    }
  };
  const { triggers: directory, lifeOps: life, agent } = sources;
  const [taskList, todoList, triggers, lifeops] = await Promise.all([
    tasks.list(), todos.list(),
    attempt('triggers', directory && (() => directory.summaries())),
    attempt('life-ops', life && (() => life.overview())),
  ]);
  const triggerList = triggers ?? [];
  return {
    tasks: taskList,
    triggers: triggerList,
    todos: todoList,
    summary: {
      totalTasks: taskList.length, completedTasks: taskList.filter((t) => t.isCompleted).length,
      totalTriggers: triggerList.length, activeTriggers: triggerList.filter((t) => t.enabled).length,
      totalTodos: todoList.length, completedTodos: todoList.filter((t) => t.isCompleted).length,
    },
    autonomy: agent?.status().autonomy ?? NO_AUTONOMY,
    ...(lifeops && { lifeops }),
    tasksAvailable: true,
    triggersAvailable: triggers !== undefined,
    todosAvailable: true,
    lifeopsAvailable: lifeops !== undefined,
  };
}
