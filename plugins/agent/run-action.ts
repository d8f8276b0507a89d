import type { Action, ActionContext } from '../../sdk/index.ts';
import { raceAbort } from './abortable.ts';
import type { ActionChoice } from './action-line.ts';

export interface ActionOutcome { ok: boolean; text: string }

/** Runs a chosen action; an unknown action, missing parameters or a failure become a sentence in the reply. */
export async function runAction(action: Action | undefined, choice: ActionChoice, context: ActionContext): Promise<ActionOutcome> {
  if (!action) return { ok: false, text: `I can't do ${choice.name}: no such action is available.` };
  const missing = (action.parameters ?? []).filter((p) => p.required && !choice.params[p.name]?.trim()).map((p) => p.name);
  if (missing.length) return { ok: false, text: `To run ${action.name} I need: ${missing.join(', ')}.` };
  try {
    const result = await raceAbort(action.handler(choice.params, context), context.signal);
    return { ok: true, text: result.text };
  } catch (error) {
    if (context.signal.aborted) throw error;
    return { ok: false, text: `${action.name} failed: ${(error as Error)?.message ?? String(error)}` };
  }
}
