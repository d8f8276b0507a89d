import { agentRuntime, Type, type PluginContext } from '../../sdk/index.ts';
import type { Scheduler } from './scheduler.ts';

const TAGS = ['workflow'];

/** Why scheduled work cannot run right now; empty when it can. */
function problems(ctx: PluginContext<any>, scheduler: Scheduler): string[] {
  const found: string[] = [];
  if (!scheduler.status().schedulerRunning) found.push('the trigger scheduler is not running');
  const agent = ctx.tryUse(agentRuntime);
  if (!agent) found.push('no agent runtime loaded');
  else if (agent.state() !== 'running') found.push(`the agent is ${agent.state()}`);
  return found;
}

/**
 * The workflow endpoints. There is no workflow engine: scheduled automation is triggers only, so the
 * list is always empty and the status reports mode `triggers-only`.
 */
export function registerWorkflowRoutes(ctx: PluginContext<any>, scheduler: Scheduler): void {
  ctx.route({
    method: 'GET', path: '/api/workflow/workflows', tags: TAGS, summary: 'List workflows (always empty: no workflow engine)',
    description: 'No workflow engine is part of this service; scheduled automation runs as triggers (/api/triggers). The list keeps the shape {workflows: [...]} for clients that expect it.',
    schema: { response: { 200: Type.Object({ workflows: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: true })) }) } },
    handler: () => ({ workflows: [] }),
  });

  ctx.route({
    method: 'GET', path: '/api/workflow/status', tags: TAGS, summary: 'Automation mode, health and platform',
    description: 'mode is triggers-only (no workflow engine). health is ok when the trigger scheduler runs and an agent runtime is loaded and running, else degraded; reasons says why. platform is process.platform-process.arch (e.g. linux-x64).',
    schema: {
      response: {
        200: Type.Object({
          mode: Type.Literal('triggers-only'),
          health: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
          platform: Type.String(),
          reasons: Type.Array(Type.String()),
        }),
      },
    },
    handler() {
      const reasons = problems(ctx, scheduler);
      return { mode: 'triggers-only', health: reasons.length ? 'degraded' : 'ok', platform: `${process.platform}-${process.arch}`, reasons };
    },
  });
}
