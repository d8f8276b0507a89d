import { agentResets, agentRuntime, definePlugin, triggerDirectory, Type, type PluginContext } from '../../sdk/index.ts';
import { registerTriggerRoutes } from './routes.ts';
import { registerWorkflowRoutes } from './routes-workflow.ts';
import { createScheduler, type Clock } from './scheduler.ts';
import { MISSED_RUN_RULE, type StoredTrigger } from './schemas.ts';
import { createTriggers } from './service.ts';
import { createTriggerStore, migrations } from './store.ts';

/** Resolved per execution: the agent may load later, restart or be absent. */
function instruct(ctx: PluginContext<any>, trigger: StoredTrigger) {
  const agent = ctx.tryUse(agentRuntime);
  if (!agent) throw new Error('no agent runtime loaded');
  return agent.instruct({ text: trigger.instructions, wakeMode: trigger.wakeMode, source: `trigger:${trigger.id}`, signal: ctx.signal });
}

/** Triggers: instructions handed to the agent on a schedule (interval, once, cron), with run history and health. */
export default definePlugin({
  id: 'triggers',
  version: '0.1.0',
  description: 'Triggers that fire on schedule (interval, once, cron) into the agent runtime, run history, health; the workflow endpoints (triggers-only)',
  optional: [agentRuntime, agentResets],
  provides: [triggerDirectory],
  config: Type.Object({
    catchUpWindowMs: Type.Integer({ minimum: 60_000, default: 86_400_000, env: 'SVC_TRIGGERS_CATCH_UP_WINDOW_MS', description: MISSED_RUN_RULE }),
  }),
  async setup(ctx) {
    const { catchUpWindowMs } = ctx.config.get();
    const store = createTriggerStore(await ctx.storage.sql({ migrations }));
    // Kernel timers: owned by the plugin (released at unload) and cancelled on every re-arm.
    const clock: Clock = { now: Date.now, setTimer: (fn, ms) => ctx.setTimeout(fn, ms), clearTimer: (cancel) => (cancel as () => void)() };
    const triggers = createTriggers({
      store, now: clock.now, catchUpWindowMs, log: ctx.log,
      execute: async (trigger) => instruct(ctx, trigger),
      onRun: (run) => ctx.ws.broadcast({ type: 'trigger-run', triggerId: run.triggerId, run }),
      onChange: () => void scheduler.rearm(),
    });
    const scheduler = createScheduler({
      clock, fireDue: triggers.fireDue, earliest: triggers.earliest,
      onError: (error) => ctx.log.warn(`Trigger scheduler: ${(error as Error).message}`),
    });
    ctx.track(async () => {
      scheduler.stop();
      await scheduler.settled(); // a tick in progress finishes before the database closes
      await triggers.idle();
    });
    ctx.provide(triggerDirectory, { summaries: triggers.summaries });
    // POST /api/agent/reset wipes the agent's workspace: its triggers stop and go.
    const resets = ctx.tryUse(agentResets);
    if (resets) ctx.track(resets.add({ name: 'triggers', reset: () => triggers.clear() }));
    registerTriggerRoutes(ctx, triggers, scheduler, catchUpWindowMs);
    registerWorkflowRoutes(ctx, scheduler);
    await scheduler.start();
  },
});
