// Shared by the agent plugin tests (not a test file): a kernel with the agent bundle, scripted test
// plugins that extend the agent's registries, and an SSE reader for fetch responses.
import agent from '../../plugins/agent/index.ts';
import compatV1 from '../../plugins/compat-v1/index.ts';
import conversations from '../../plugins/conversations/index.ts';
import memory from '../../plugins/memory/index.ts';
import modelOffline from '../../plugins/model-offline/index.ts';
import {
  agentActions, agentEvaluators, agentModels, agentProviders, definePlugin, type Action, type ContextProvider, type Evaluator,
  type ModelChunk, type ModelRequest, type PluginDef,
} from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';

export const AGENT_BUNDLE: PluginDef<any>[] = [agent, modelOffline, memory, conversations, compatV1];

export interface AgentKernelOptions {
  plugins?: PluginDef<any>[];
  agent?: Record<string, unknown>;
  stateDir?: string;
}

/** A test kernel running the agent bundle plus extra plugins; `agent` sets the agent plugin's config. */
export function startAgentKernel(options: AgentKernelOptions = {}): Promise<TestKernel> {
  return createTestKernel({ plugins: [...AGENT_BUNDLE, ...(options.plugins ?? [])], config: { agent: options.agent ?? {} }, stateDir: options.stateDir });
}

let fixtures = 0;
/** A plugin adding model providers, actions, context providers and evaluators to the agent's registries. */
export function extensions(parts: { models?: ScriptedModel[]; actions?: Action[]; providers?: ContextProvider[]; evaluators?: Evaluator[] }): PluginDef<any> {
  return definePlugin({
    id: `agent-test-extensions-${++fixtures}`,
    version: '0.0.1',
    requires: [agentModels, agentActions, agentProviders, agentEvaluators],
    setup(ctx) {
      for (const model of parts.models ?? []) ctx.track(ctx.use(agentModels).add({ name: model.name, model: () => `${model.name}-model`, stream: model.stream }));
      for (const action of parts.actions ?? []) ctx.track(ctx.use(agentActions).add(action));
      for (const provider of parts.providers ?? []) ctx.track(ctx.use(agentProviders).add(provider));
      for (const evaluator of parts.evaluators ?? []) ctx.track(ctx.use(agentEvaluators).add(evaluator));
    },
  });
}

export interface ScriptedModel { name: string; stream(request: ModelRequest): AsyncIterable<ModelChunk> }

/** A model that answers every request with these text chunks. */
export function scripted(name: string, chunks: string[]): ScriptedModel {
  return { name, async *stream() { for (const text of chunks) yield { type: 'text', text }; } };
}

/** Resolves when the signal aborts (for models that wait forever). */
export const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

/** The JSON data frames of a whole SSE response (comments and `[DONE]` kept as strings). */
export async function sseData(response: Response): Promise<unknown[]> {
  const text = await response.text();
  return text.split('\n\n').filter((block) => block.includes('data: ')).map((block) => {
    const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    try { return JSON.parse(data); } catch { return data; }
  });
}

/** Polls until `probe` returns a truthy value. */
export async function until<T>(probe: () => Promise<T | undefined | false | null> | T | undefined | false | null, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
