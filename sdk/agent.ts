import { createToken } from './tokens.ts';

/**
 * Extension points of the agent runtime. The agent plugin provides these tokens; other plugins add to
 * the registries with `ctx.track(registry.add(item))` so that unloading them removes what they added.
 */
export interface Registry<T extends { name: string }> {
  /** Adds an item; throws on a duplicate name. The returned function removes it. */
  add(item: T): () => void;
  get(name: string): T | undefined;
  list(): T[];
}

export interface ActionParameter { name: string; description: string; required: boolean }
export interface ActionContext {
  /** The user message that led to the action, when invoked by the agent. */
  text?: string;
  roomId?: string;
  signal: AbortSignal;
}
export interface ActionResult { text: string; data?: unknown }

/** Something the agent can do; chosen by name, similes or description. */
export interface Action {
  name: string;
  description: string;
  similes?: string[];
  parameters?: ActionParameter[];
  handler(params: Record<string, string>, context: ActionContext): Promise<ActionResult>;
}

export interface ProviderItem { id: string; text: string; title?: string; score?: number }
export interface ProviderResult { text: string; items?: ProviderItem[] }

/** A context source consulted while composing a reply (knowledge, memory, …). */
export interface ContextProvider {
  name: string;
  description?: string;
  get(message: { text: string; roomId: string }, signal: AbortSignal): Promise<ProviderResult | undefined>;
}

/** Runs after a reply is produced (e.g. to extract memories). */
export interface Evaluator {
  name: string;
  description?: string;
  run(turn: { userText: string; replyText: string; roomId: string }): Promise<void>;
}

/** One-shot text generation with the active model (recorded as a trajectory step). */
export interface TextGenerator {
  generate(request: { system?: string; prompt: string; purpose: string; signal?: AbortSignal }): Promise<string>;
}

/** Agent runtime state as status and health report it. */
export type AgentState = 'not_started' | 'starting' | 'running' | 'paused' | 'stopped' | 'restarting' | 'error';
export interface AgentStatusSource { state(): AgentState }

export const agentStatus = createToken<AgentStatusSource>('agent.status');
export const agentActions = createToken<Registry<Action>>('agent.actions');
export const agentProviders = createToken<Registry<ContextProvider>>('agent.providers');
export const agentEvaluators = createToken<Registry<Evaluator>>('agent.evaluators');
export const agentText = createToken<TextGenerator>('agent.text');

export interface ModelMessage { role: 'system' | 'user' | 'assistant'; content: string }

/** What a model provider is asked: the composed prompt, plus the same context in structured form. */
export interface ModelRequest {
  /** System prompt first, then the recent conversation, ending with the user's message. */
  messages: ModelMessage[];
  /** Structured context for providers that do not read prose (the built-in offline model). */
  context: {
    character: { name: string; bio: string[]; adjectives: string[]; topics: string[]; style: string[] };
    userText: string;
    providers: { name: string; result: ProviderResult }[];
    actions: Pick<Action, 'name' | 'description' | 'similes' | 'parameters'>[];
  };
  /** Why the call is made (chat, greeting, character-generate, …); recorded in trajectories. */
  purpose: string;
  maxTokens?: number;
  temperature?: number;
  signal: AbortSignal;
}

/** A streamed piece of a model's answer. */
export type ModelChunk =
  | { type: 'text'; text: string }
  | { type: 'action'; name: string; params: Record<string, string> }
  | { type: 'usage'; promptTokens: number; completionTokens: number };

/** A model backend (offline, OpenAI-compatible, Anthropic, Google, Ollama…), selected by configuration. */
export interface ModelProvider {
  name: string;
  /** The model id it currently serves. */
  model(): string;
  stream(request: ModelRequest): AsyncIterable<ModelChunk>;
}

export const agentModels = createToken<Registry<ModelProvider>>('agent.models');
