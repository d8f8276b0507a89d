import { randomUUID } from 'node:crypto';
import { errors, type Logger, type SqlDatabase } from '../../sdk/index.ts';

/** The spec's agent event envelope. */
export interface AgentEvent {
  type: 'agent_event';
  version: 1;
  eventId: string;
  ts: number;
  runId: string;
  seq: number;
  payload: Record<string, unknown>;
}

export interface EventQuery { after?: string; limit: number; runId?: string; fromSeq?: number }
export interface EventPage { events: AgentEvent[]; latestEventId: string | null; totalBuffered: number; replayed: number }

/** A run (a runtime session, an autonomy cycle): its events carry one runId and seq 0, 1, 2, … */
export interface EventRun { readonly id: string; emit(payload: Record<string, unknown>): AgentEvent }

interface Row { event_id: number; ts: number; run_id: string; seq: number; payload: string }

const toEvent = (row: Row): AgentEvent => ({
  type: 'agent_event', version: 1, eventId: String(row.event_id), ts: row.ts, runId: row.run_id, seq: row.seq, payload: JSON.parse(row.payload),
});

/**
 * A persistent ring buffer of agent events. Ids are assigned in memory from the database's high-water
 * mark, so they stay monotonic across restarts and resets, and subscribers see events in id order.
 * Writes are queued behind each other; `flush()` waits for them (on unload).
 */
export class AgentEventLog {
  private readonly listeners = new Set<(event: AgentEvent) => void>();
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    private readonly db: SqlDatabase,
    private readonly capacity: number,
    private readonly log: Logger,
    private readonly buffer: AgentEvent[],
    private lastId: number,
  ) {}

  static async open(db: SqlDatabase, capacity: number, log: Logger): Promise<AgentEventLog> {
    const rows = await db.all<Row>('SELECT event_id, ts, run_id, seq, payload FROM agent_events ORDER BY event_id DESC LIMIT ?', [capacity]);
    const mark = await db.get<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'agent_events'");
    return new AgentEventLog(db, capacity, log, rows.reverse().map(toEvent), Math.max(mark?.seq ?? 0, rows[0]?.event_id ?? 0));
  }

  run(runId: string = randomUUID()): EventRun {
    let seq = 0;
    return { id: runId, emit: (payload) => this.append(runId, seq++, payload) };
  }

  query({ after, limit, runId, fromSeq }: EventQuery): EventPage {
    let start = 0;
    if (after !== undefined) {
      const index = this.buffer.findIndex((e) => e.eventId === after);
      if (index === -1) throw errors.gone(`Event cursor ${after} is not in the buffer (expired or unknown); read again without "after"`, 'CURSOR_EXPIRED');
      start = index + 1;
    }
    const matching = this.buffer.slice(start).filter((e) => (runId === undefined || e.runId === runId) && (fromSeq === undefined || e.seq >= fromSeq));
    const events = after !== undefined ? matching.slice(0, limit) : matching.slice(-limit);
    return { events, latestEventId: this.buffer.at(-1)?.eventId ?? null, totalBuffered: this.buffer.length, replayed: events.length };
  }

  latest(count: number): AgentEvent[] { return this.buffer.slice(-count); }

  subscribe(listener: (event: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every event emitted so far is on disk. */
  flush(): Promise<void> { return this.writes; }

  private append(runId: string, seq: number, payload: Record<string, unknown>): AgentEvent {
    const id = ++this.lastId;
    const event: AgentEvent = { type: 'agent_event', version: 1, eventId: String(id), ts: Date.now(), runId, seq, payload };
    this.buffer.push(event);
    if (this.buffer.length > this.capacity) this.buffer.splice(0, this.buffer.length - this.capacity);
    this.writes = this.writes.then(() => this.db.tx(async (tx) => {
      await tx.run('INSERT INTO agent_events (event_id, ts, run_id, seq, payload) VALUES (?, ?, ?, ?, ?)', [id, event.ts, runId, seq, JSON.stringify(payload)]);
      await tx.run('DELETE FROM agent_events WHERE event_id <= ?', [id - this.capacity]);
    })).catch((error) => this.log.error('Could not persist an agent event', { error, tags: ['agent-events'] }));
    for (const listener of this.listeners) listener(event);
    return event;
  }
}
