import { createHash } from 'node:crypto';
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

/** An image attached to a user message (base64 data); providers without vision ignore it. */
export interface ModelImage { data: string; mimeType: string; name?: string }
export interface ModelMessage { role: 'system' | 'user' | 'assistant'; content: string; images?: ModelImage[] }

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

/** The name the built-in offline provider registers under; it is chosen only when no other provider is. */
export const OFFLINE_PROVIDER = 'offline';

/**
 * A deterministic room id (UUIDv5 layout over SHA-1) for a key in a scope, e.g. `roomIdFor('conversation', id)`:
 * the same conversation, `/v1` room or channel always maps to the same room.
 */
export function roomIdFor(scope: string, key: string): string {
  const bytes = createHash('sha1').update(`svc-room\0${scope}\0${key}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** One stored message of a room (a conversation, a `/v1` room, a channel). */
export interface RoomMessage {
  id: string;
  roomId: string;
  role: 'user' | 'assistant';
  text: string;
  /** Unix ms. */
  timestamp: number;
  source?: string;
  from?: string;
  fromUserName?: string;
  avatarUrl?: string;
  metadata?: Record<string, unknown>;
}
export type NewRoomMessage = Omit<RoomMessage, 'id' | 'timestamp'> & { timestamp?: number };

/** The agent's message memory, per room; the pipeline reads recent history from it and stores turns in it. */
export interface MessageStore {
  /** Oldest first: the latest `limit` messages (default 200), or those before the message `before` (unknown id → none). */
  list(roomId: string, options?: { limit?: number; before?: string }): Promise<RoomMessage[]>;
  add(message: NewRoomMessage): Promise<RoomMessage>;
  /** Deletes every message of a room for good; returns how many. */
  clear(roomId: string): Promise<number>;
}
export const agentMessages = createToken<MessageStore>('agent.messages');

/** A turn handed to the agent: the user's text in a room, with the prior turns or the room's stored history. */
export interface AgentTurn {
  roomId: string;
  text: string;
  /** Where the turn comes from (chat, v1, autonomy, …); recorded as the trajectory source. */
  source: string;
  /** Prior turns; when omitted, the room's stored history is used. */
  history?: ModelMessage[];
  /** Extra system instructions from the caller (e.g. the messages API's `system`). */
  system?: string;
  images?: ModelImage[];
  /** `turn` (default): store the user message and the reply; `reply`: only the reply; `none`. */
  store?: 'turn' | 'reply' | 'none';
  /** Why the model is called (default `chat`); also tells the offline model what to produce. */
  purpose?: string;
  conversationId?: string;
  entityId?: string;
  /** The caller going away (client disconnect) aborts the model call. */
  signal?: AbortSignal;
}

/** A reply in progress: iterate for text deltas, or `text()` for the whole reply. Errors are HttpErrors. */
export interface AgentReply extends AsyncIterable<string> {
  readonly agentName: string;
  /** The model id that answers. */
  readonly model: string;
  /** Drains the reply and returns it complete. */
  text(): Promise<string>;
  /** Token counts (the provider's, or estimated); final once the reply is complete. */
  usage(): { promptTokens: number; completionTokens: number };
}

export interface AgentStatusSnapshot {
  state: AgentState;
  agentName: string;
  model: string;
  provider: string;
  /** Milliseconds since the runtime started (kept while paused; 0 when not running). */
  uptime: number;
  startedAt: number | null;
  /** `lastEventAt`: Unix ms of the latest autonomy event (cycle start, thought, error, end), null before the first. */
  autonomy: { enabled: boolean; thinking: boolean; lastEventAt: number | null };
  pendingRestart: boolean;
  pendingRestartReasons: string[];
}

/** The running agent: lifecycle state and the message pipeline (provided by the agent plugin). */
export interface AgentRuntime extends AgentStatusSource {
  status(): AgentStatusSnapshot;
  /** Throws 503 SERVICE_UNAVAILABLE unless the agent is running. */
  assertRunning(): void;
  agentName(): string;
  /**
   * Starts a reply: checks the state, selects the model, stores the user message (before resolving),
   * then streams as it is iterated. Throws HttpError: 503 not running or no model, 502/401/503 model failures.
   */
  respond(turn: AgentTurn): Promise<AgentReply>;
  /** Records that a change needs a runtime restart (status `pendingRestart`, WebSocket `restart-required`). */
  requireRestart(reason: string): void;
  /**
   * Hands instructions (a trigger's) to the agent. `inject_now` runs an autonomy cycle on them at once
   * and resolves with its text; `next_autonomy_cycle` queues them for the next cycle (durably, at most
   * 50; they survive a restart) and resolves `queued`. Throws 503 unless the agent is running.
   */
  instruct(request: InstructionRequest): Promise<InstructionOutcome>;
}

/** Heads the list of instructions in an autonomy prompt (one `- ` line each), so models can find them. */
export const INSTRUCTIONS_HEADING = 'Instructions to act on now:';

export type WakeMode = 'inject_now' | 'next_autonomy_cycle';
export interface InstructionRequest {
  text: string;
  wakeMode: WakeMode;
  /** Who asks (e.g. `trigger:<id>`); recorded in the agent event and the trajectory source. */
  source: string;
  signal?: AbortSignal;
}
export type InstructionOutcome = { mode: 'ran'; text: string } | { mode: 'queued'; queued: number };
export const agentRuntime = createToken<AgentRuntime>('agent.runtime');

/** Agent data held by other plugins (conversations, memories) that POST /api/agent/reset must wipe. */
export interface ResetHook { name: string; reset(): Promise<void> }
export const agentResets = createToken<Registry<ResetHook>>('agent.resets');

export type TrajectoryStatus = 'active' | 'completed' | 'error' | 'timeout';
/** A record of one agent run (a chat turn, an autonomy cycle, a generation), with the spec's field names. */
export interface Trajectory {
  id: string;
  agentId: string;
  roomId: string | null;
  entityId: string | null;
  conversationId: string | null;
  source: string;
  status: TrajectoryStatus;
  startTime: number;
  endTime: number | null;
  durationMs: number | null;
  llmCallCount: number;
  providerAccessCount: number;
  totalPromptTokens: number;
  totalCompletionTokens: number;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}
export interface LlmCall {
  id: string; trajectoryId: string; stepId: string; model: string; systemPrompt: string; userPrompt: string;
  response: string; temperature: number | null; maxTokens: number | null; purpose: string; actionType: string | null;
  latencyMs: number; promptTokens: number; completionTokens: number; timestamp: number; createdAt: string;
}
export interface ProviderAccess {
  id: string; trajectoryId: string; stepId: string; providerName: string; purpose: string;
  data: Record<string, unknown>; timestamp: number; createdAt: string;
}
export interface TrajectoryQuery { limit?: number; offset?: number; source?: string; status?: TrajectoryStatus }

/** Read access to recorded trajectories, for the trajectories and training plugins. */
export interface TrajectoryStore {
  /** Newest first. */
  list(query?: TrajectoryQuery): Promise<{ trajectories: Trajectory[]; total: number }>;
  get(id: string): Promise<{ trajectory: Trajectory; llmCalls: LlmCall[]; providerAccesses: ProviderAccess[] } | undefined>;
  /** Deletes the given trajectories (or all) with their steps; returns how many. */
  delete(ids: string[] | 'all'): Promise<number>;
}
export const agentTrajectories = createToken<TrajectoryStore>('agent.trajectories');
