import { setMaxListeners } from 'node:events';
import {
  errors, INSTRUCTIONS_HEADING, roomIdFor, type AgentReply, type AgentRuntime, type AgentState, type AgentStatusSnapshot, type AgentTurn, type InstructionOutcome, type InstructionRequest, type Logger,
  type Registry, type ResetHook, type TextGenerator, type TrajectoryStore,
} from '../../sdk/index.ts';
import { AutonomyLoop } from './autonomy.ts';
import { type Character, defaultCharacter } from './character.ts';
import type { AgentEventLog, EventRun } from './event-log.ts';
import { Lifecycle } from './lifecycle.ts';
import { selectModel } from './model-selection.ts';
import { type PipelineDeps, type PipelineSettings, startReply } from './pipeline.ts';
import type { Settings } from './store.ts';

export interface RuntimeConfig extends PipelineSettings { defaultName: string; heartbeatMs: number; autonomyIntervalMs: number }

export interface RuntimeDeps {
  pipeline: Omit<PipelineDeps, 'character' | 'settings' | 'onAction' | 'log'>;
  settings: Settings;
  clearMessages(): Promise<void>;
  trajectories: TrajectoryStore;
  events: AgentEventLog;
  resets: Registry<ResetHook>;
  config(): RuntimeConfig;
  broadcast(message: unknown): void;
  log: Logger;
}

const AUTONOMY_PROMPT = 'You are running on your own (autonomy mode). In one or two sentences, reflect on what you know and what would be useful to do next.';
const KEEP_ON_RESET = ['agent_id'];
/** Settings key of the instructions waiting for the next autonomy cycle. */
const QUEUE_KEY = 'autonomy_queue';

/**
 * The agent runtime: the lifecycle state machine with its side effects (a session whose abort stops
 * in-flight replies, heartbeats, the autonomy loop), the character, and the entry points to the pipeline.
 */
export class AgentRuntimeService implements AgentRuntime, TextGenerator {
  private readonly lifecycle = new Lifecycle((state, previous) => this.changed(state, previous));
  private session = new AbortController();
  private sessionRun: EventRun;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly pending = new Set<string>();
  private autonomyEnabled = false;
  private autonomyOnResume = false;
  private readonly autonomy: AutonomyLoop;
  private readonly pipeline: PipelineDeps;

  private constructor(private readonly deps: RuntimeDeps, private current: Character, autonomy: boolean, queued: string[], readonly agentId: string) {
    this.autonomyEnabled = autonomy;
    this.sessionRun = deps.events.run();
    this.pipeline = {
      ...deps.pipeline, log: deps.log, character: () => this.current, settings: () => deps.config(),
      onAction: (outcome) => this.sessionRun.emit({ stream: 'action', ...outcome }),
    };
    this.autonomy = new AutonomyLoop({
      intervalMs: deps.config().autonomyIntervalMs, events: deps.events, queued, saveQueue: (list) => deps.settings.set(QUEUE_KEY, list),
      think: (previous, instructions, source, signal) => this.think(previous, instructions, source, signal),
    });
  }

  static async create(deps: RuntimeDeps, agentId: string): Promise<AgentRuntimeService> {
    const character = (await deps.settings.get<Character>('character')) ?? defaultCharacter(deps.config().defaultName);
    const queued = (await deps.settings.get<string[]>(QUEUE_KEY)) ?? [];
    return new AgentRuntimeService(deps, character, (await deps.settings.get<boolean>('autonomy')) ?? false, queued, agentId);
  }

  state(): AgentState { return this.lifecycle.state; }
  agentName(): string { return this.current.name; }
  character(): Character { return this.current; }

  status(): AgentStatusSnapshot {
    let model = 'none';
    let provider = 'none';
    try {
      const selected = selectModel(this.pipeline.models, this.deps.config().provider);
      model = selected.model();
      provider = selected.name;
    } catch { /* reported as none; a reply would answer 503 with the reason */ }
    return {
      state: this.lifecycle.state, agentName: this.current.name, model, provider, uptime: this.lifecycle.uptime(), startedAt: this.lifecycle.startedAt,
      autonomy: this.autonomyStatus(), pendingRestart: this.pending.size > 0, pendingRestartReasons: [...this.pending],
    };
  }

  assertRunning(): void {
    const state = this.lifecycle.state;
    if (state !== 'running') throw errors.unavailable(`The agent is ${state.replace('_', ' ')}; start or resume it first`);
  }

  respond(turn: AgentTurn): Promise<AgentReply> {
    this.assertRunning();
    if (!turn.text.trim()) throw errors.badRequest('Message text is required');
    return startReply(this.pipeline, turn, this.session.signal, { providers: true, actions: true });
  }

  /** One-shot generation with the active model (agentText): no context providers, no actions, nothing stored. */
  async generate({ system, prompt, purpose, signal }: Parameters<TextGenerator['generate']>[0]): Promise<string> {
    this.assertRunning();
    if (!prompt.trim()) throw errors.badRequest('A prompt is required');
    const turn: AgentTurn = { roomId: roomIdFor('generate', purpose), text: prompt, system, source: 'generate', purpose, history: [], store: 'none', signal };
    return (await startReply(this.pipeline, turn, this.session.signal, { providers: false, actions: false })).text();
  }

  requireRestart(reason: string): void {
    this.pending.add(reason);
    this.deps.broadcast({ type: 'restart-required', reasons: [...this.pending] });
  }

  autonomyStatus() {
    return { enabled: this.autonomyEnabled, thinking: this.autonomy.thinking, lastEventAt: this.autonomy.lastEventAt };
  }

  async instruct({ text, wakeMode, source, signal }: InstructionRequest): Promise<InstructionOutcome> {
    this.assertRunning();
    if (!text.trim()) throw errors.badRequest('Instructions are required');
    if (wakeMode === 'next_autonomy_cycle') return { mode: 'queued', queued: await this.autonomy.enqueue(text) };
    return { mode: 'ran', text: await this.autonomy.runNow(text, source, signal) };
  }

  async setAutonomy(enabled: boolean): Promise<void> {
    await this.deps.settings.set('autonomy', enabled);
    if (this.lifecycle.state === 'paused') this.autonomyOnResume = enabled;
    else this.autonomyEnabled = enabled;
    this.syncAutonomy();
  }

  async updateCharacter(patch: Partial<Character>): Promise<Character> {
    const next = { ...this.current, ...patch };
    await this.deps.settings.set('character', next);
    this.current = next;
    return next;
  }

  start(): void {
    this.lifecycle.check('start');
    this.openSession();
    this.lifecycle.set('starting');
    this.lifecycle.set('running');
    this.syncAutonomy();
  }

  async stop(): Promise<void> {
    this.lifecycle.check('stop');
    this.halt();
    this.autonomyEnabled = false;
    this.lifecycle.set('stopped');
    await this.deps.settings.set('autonomy', false);
  }

  pause(): void {
    this.lifecycle.check('pause');
    this.autonomyOnResume = this.autonomyEnabled;
    this.autonomyEnabled = false;
    this.lifecycle.set('paused');
    this.syncAutonomy();
  }

  resume(): void {
    this.lifecycle.check('resume');
    this.autonomyEnabled = this.autonomyOnResume;
    this.lifecycle.set('running');
    this.syncAutonomy();
  }

  /** In-process restart: in-flight replies end, the character and settings are read again, timers restart. */
  async restart(): Promise<void> {
    await this.restartWith(async () => {
      this.current = (await this.deps.settings.get<Character>('character')) ?? defaultCharacter(this.deps.config().defaultName);
      this.autonomyEnabled = (await this.deps.settings.get<boolean>('autonomy')) ?? false;
    });
  }

  /** Wipes the character, settings, messages, trajectories and every reset hook's data, then restarts on defaults. */
  async reset(): Promise<void> {
    await this.restartWith(async () => {
      await this.deps.settings.clearExcept(KEEP_ON_RESET);
      await this.deps.clearMessages();
      await this.deps.trajectories.delete('all');
      const failed: string[] = [];
      for (const hook of this.deps.resets.list()) {
        await hook.reset().catch((error) => { failed.push(hook.name); this.deps.log.error(`Reset hook "${hook.name}" failed`, { error, tags: ['agent'] }); });
      }
      this.current = defaultCharacter(this.deps.config().defaultName);
      this.autonomyEnabled = false;
      this.autonomy.forget();
      if (failed.length) throw errors.internal(`Reset incomplete: ${failed.join(', ')} could not be wiped`);
    });
  }

  /** Stops everything this runtime runs (plugin unload), after pending event writes. */
  async dispose(): Promise<void> {
    this.halt();
    await this.deps.events.flush();
  }

  private async restartWith(reload: () => Promise<void>): Promise<void> {
    this.lifecycle.check('restart');
    this.lifecycle.set('restarting');
    this.halt();
    try {
      await reload();
    } finally {
      this.pending.clear();
      this.openSession();
      this.lifecycle.set('running');
      this.syncAutonomy();
    }
  }

  private openSession(): void {
    this.session = new AbortController();
    // Every in-flight reply listens to the session; concurrency is not a leak.
    setMaxListeners(0, this.session.signal);
    this.sessionRun = this.deps.events.run();
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => this.sessionRun.emit({ stream: 'heartbeat', state: this.lifecycle.state, uptime: this.lifecycle.uptime() }), this.deps.config().heartbeatMs);
  }

  private halt(): void {
    this.session.abort(new Error('Agent stopped'));
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.autonomy.setActive(false);
  }

  private syncAutonomy(): void {
    this.autonomy.setActive(this.autonomyEnabled && this.lifecycle.state === 'running');
  }

  private changed(state: AgentState, previous: AgentState): void {
    this.sessionRun.emit({ stream: 'lifecycle', state, previous });
    this.deps.broadcast({ type: 'status', ...this.status() });
  }

  private async think(previous: string[], instructions: string[], source: string, signal: AbortSignal): Promise<string> {
    const text = instructions.length ? `${AUTONOMY_PROMPT}\n\n${INSTRUCTIONS_HEADING}\n${instructions.map((i) => `- ${i.replace(/\s*\n\s*/g, ' ')}`).join('\n')}` : AUTONOMY_PROMPT;
    const turn: AgentTurn = {
      roomId: roomIdFor('autonomy', this.agentId), text, source, purpose: 'autonomy', store: 'none', signal,
      history: previous.map((content) => ({ role: 'assistant', content })),
    };
    return (await startReply(this.pipeline, turn, this.session.signal, { providers: true, actions: false })).text();
  }
}
