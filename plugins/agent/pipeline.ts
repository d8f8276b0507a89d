import { randomUUID } from 'node:crypto';
import type {
  Action, AgentReply, AgentTurn, ContextProvider, Evaluator, Logger, MessageStore, ModelMessage, ModelProvider, ModelRequest, Registry, RoomMessage,
} from '../../sdk/index.ts';
import { untilAborted } from './abortable.ts';
import { type ActionChoice, ActionLineFilter } from './action-line.ts';
import type { Character } from './character.ts';
import { composeRequest } from './compose-prompt.ts';
import { gatherContext } from './gather-context.ts';
import { type AbortCause, modelFailure } from './model-errors.ts';
import { selectModel } from './model-selection.ts';
import { runAction } from './run-action.ts';
import type { TrajectoryRecorder } from './trajectory-recorder.ts';

export interface PipelineSettings { provider?: string; historyLimit: number; replyTimeoutMs: number; providerTimeoutMs: number }

export interface PipelineDeps {
  models: Registry<ModelProvider>;
  actions: Registry<Action>;
  providers: Registry<ContextProvider>;
  evaluators: Registry<Evaluator>;
  messages: MessageStore;
  recorder: TrajectoryRecorder;
  character(): Character;
  settings(): PipelineSettings;
  onAction(outcome: { name: string; ok: boolean; roomId: string }): void;
  log: Logger;
}

/** Which extension points a reply consults (one-shot generation and autonomy leave some out). */
export interface ReplyOptions { providers: boolean; actions: boolean }

const MAX_ACTIONS_PER_REPLY = 3;
const estimateTokens = (text: string) => Math.ceil(text.length / 4);
const toHistory = (messages: RoomMessage[]): ModelMessage[] => messages.map((m) => ({ role: m.role, content: m.text }));

/**
 * The message pipeline. Before it resolves: select the model, read the room's history, store the user
 * message. As it is iterated: consult the context providers, stream the model (action lines taken out),
 * run the chosen actions, store the reply, run evaluators. Every step lands in one trajectory. The
 * model call is aborted when the caller's signal fires, the agent stops, the reply times out, or the
 * consumer stops iterating.
 */
export async function startReply(deps: PipelineDeps, turn: AgentTurn, session: AbortSignal, options: ReplyOptions): Promise<AgentReply> {
  const settings = deps.settings();
  const model = selectModel(deps.models, settings.provider);
  const modelId = model.model();
  const store = turn.store ?? 'turn';
  const purpose = turn.purpose ?? 'chat';
  const history = turn.history ?? toHistory(await deps.messages.list(turn.roomId, { limit: settings.historyLimit }));
  if (store === 'turn') {
    await deps.messages.add({ roomId: turn.roomId, role: 'user', text: turn.text, source: turn.source, ...(turn.images?.length && { metadata: { images: turn.images.length } }) });
  }
  const character = deps.character();
  let usage = { promptTokens: 0, completionTokens: 0 };

  async function* produce(): AsyncGenerator<string> {
    const trajectory = deps.recorder.start({
      source: turn.source, roomId: turn.roomId, conversationId: turn.conversationId, entityId: turn.entityId,
      metadata: { provider: model.name, model: modelId, purpose },
    });
    const controller = new AbortController();
    let cause: AbortCause | undefined;
    const abortWith = (reason: AbortCause) => () => { cause ??= reason; controller.abort(new Error(`Reply aborted: ${reason}`)); };
    const onClient = abortWith('client');
    const onSession = abortWith('session');
    turn.signal?.addEventListener('abort', onClient, { once: true });
    session.addEventListener('abort', onSession, { once: true });
    if (turn.signal?.aborted) onClient();
    if (session.aborted) onSession();
    const timer = setTimeout(abortWith('timeout'), settings.replyTimeoutMs);
    let settled = false;
    let reply = '';
    try {
      const stepId = randomUUID();
      const context = options.providers
        ? await gatherContext({
          providers: deps.providers.list(), message: { text: turn.text, roomId: turn.roomId }, purpose, stepId,
          timeoutMs: settings.providerTimeoutMs, signal: controller.signal, record: trajectory.providerAccess, log: deps.log,
        })
        : [];
      const actions = options.actions ? deps.actions.list() : [];
      const request = composeRequest({
        character, userText: turn.text, history, providers: context, actions, system: turn.system, images: turn.images, purpose, signal: controller.signal,
      });
      const heard: ModelOutput = { text: '', actions: [] };
      const started = performance.now();
      for await (const out of streamModel(model, request, controller.signal, heard)) { reply += out; yield out; }
      usage = heard.usage ?? { promptTokens: estimateTokens(request.messages.map((m) => m.content).join('\n')), completionTokens: estimateTokens(heard.text) };
      trajectory.llmCall({
        stepId, model: modelId, systemPrompt: request.messages[0]!.content, userPrompt: renderUserPrompt(history, turn.text), response: heard.text,
        temperature: request.temperature ?? null, maxTokens: request.maxTokens ?? null, purpose, actionType: heard.actions.map((c) => c.name).join(',') || null,
        latencyMs: Math.round(performance.now() - started), ...usage,
      });
      for (const choice of heard.actions.slice(0, MAX_ACTIONS_PER_REPLY)) {
        const outcome = await runAction(deps.actions.get(choice.name), choice, { text: turn.text, roomId: turn.roomId, signal: controller.signal });
        trajectory.providerAccess({ stepId: randomUUID(), providerName: `action:${choice.name}`, purpose: 'action', data: { params: choice.params, ok: outcome.ok, output: outcome.text.slice(0, 2000) } });
        deps.onAction({ name: choice.name, ok: outcome.ok, roomId: turn.roomId });
        const piece = (!reply.trim() ? '' : reply.endsWith('\n') ? '\n' : '\n\n') + outcome.text;
        reply += piece;
        yield piece;
      }
      const stored = store !== 'none' && reply.trim() ? deps.messages.add({ roomId: turn.roomId, role: 'assistant', text: reply.trim(), source: turn.source }) : undefined;
      // Both writes share one journal fsync; a client reading right after the reply finds them.
      await Promise.all([stored, trajectory.finish('completed')]);
      settled = true;
      if (store === 'turn') evaluate(deps, { userText: turn.text, replyText: reply.trim(), roomId: turn.roomId });
    } catch (error) {
      settled = true;
      const failure = modelFailure(error, model.name, cause, settings.replyTimeoutMs);
      await trajectory.finish(cause === 'timeout' ? 'timeout' : 'error', { error: failure.message, code: failure.code, partialReply: reply.length });
      throw failure;
    } finally {
      clearTimeout(timer);
      turn.signal?.removeEventListener('abort', onClient);
      session.removeEventListener('abort', onSession);
      if (!settled) {
        // The consumer stopped iterating: free the model call; the partial reply is not stored.
        controller.abort(new Error('Reply abandoned'));
        void trajectory.finish('error', { error: 'Reply abandoned by its consumer', partialReply: reply.length });
      }
    }
  }

  const deltas = produce();
  return {
    agentName: character.name,
    model: modelId,
    [Symbol.asyncIterator]: () => deltas,
    async text() {
      let all = '';
      for await (const delta of deltas) all += delta;
      return all.trim();
    },
    usage: () => ({ ...usage }),
  };
}

interface ModelOutput { text: string; actions: ActionChoice[]; usage?: { promptTokens: number; completionTokens: number } }

/** Streams the model's text with action lines taken out; fills `output` with the raw text, chosen actions and usage. */
async function* streamModel(model: ModelProvider, request: ModelRequest, signal: AbortSignal, output: ModelOutput): AsyncGenerator<string> {
  const filter = new ActionLineFilter();
  for await (const chunk of untilAborted(model.stream(request), signal)) {
    if (chunk.type === 'text') {
      output.text += chunk.text;
      const out = filter.push(chunk.text);
      if (out) yield out;
    } else if (chunk.type === 'action') {
      output.actions.push({ name: chunk.name.toUpperCase(), params: chunk.params });
    } else {
      output.usage = { promptTokens: chunk.promptTokens, completionTokens: chunk.completionTokens };
    }
  }
  const tail = filter.end();
  if (tail) yield tail;
  output.actions.push(...filter.actions);
}

/** The non-system part of the prompt as one text: prior turns labelled by role, then the user's message. */
function renderUserPrompt(history: ModelMessage[], text: string): string {
  return history.length ? `${history.map((m) => `${m.role}: ${m.content}`).join('\n')}\nuser: ${text}` : text;
}

/** Evaluators run after the reply is out; a failing one is logged and never affects the reply. */
function evaluate(deps: PipelineDeps, turn: { userText: string; replyText: string; roomId: string }): void {
  for (const evaluator of deps.evaluators.list()) {
    Promise.resolve().then(() => evaluator.run(turn)).catch((error) => deps.log.warn(`Evaluator "${evaluator.name}" failed: ${(error as Error)?.message}`, { tags: ['agent'] }));
  }
}
