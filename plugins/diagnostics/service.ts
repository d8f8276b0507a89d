import type { AuditEntry, AuditSeverity, AuditType, LogEntry, LogLevel } from '../../sdk/index.ts';

export const LOG_QUERY_MAX = 200;

export interface LogFilter { source?: string; level?: LogLevel; tag?: string; since?: number }

/** The last 200 entries matching every given filter, plus the sources and tags seen in the buffer. */
export function queryLogs(all: readonly LogEntry[], filter: LogFilter) {
  const sources = new Set<string>();
  const tags = new Set<string>();
  const matching: LogEntry[] = [];
  for (const entry of all) {
    sources.add(entry.source);
    for (const tag of entry.tags) tags.add(tag);
    if (filter.source && entry.source !== filter.source) continue;
    if (filter.level && entry.level !== filter.level) continue;
    if (filter.tag && !entry.tags.includes(filter.tag)) continue;
    if (filter.since !== undefined && entry.timestamp < filter.since) continue;
    matching.push(entry);
  }
  return { entries: matching.slice(-LOG_QUERY_MAX), sources: [...sources].sort(), tags: [...tags].sort() };
}

export interface AuditFilter { type?: AuditType; severity?: AuditSeverity; since?: number }

/** In-memory ring buffer of audit entries with live subscribers (for the SSE stream). */
export class AuditLog {
  private readonly entries: AuditEntry[] = [];
  private readonly subscribers = new Set<(entry: AuditEntry) => void>();

  constructor(private readonly capacity: number) {}

  record(entry: AuditEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    for (const subscriber of this.subscribers) subscriber(entry);
  }

  get size(): number { return this.entries.length; }

  query(filter: AuditFilter, limit: number): AuditEntry[] {
    return this.entries.filter((e) => matches(e, filter)).slice(-limit);
  }

  subscribe(fn: (entry: AuditEntry) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }
}

export function matches(entry: AuditEntry, filter: AuditFilter): boolean {
  return (!filter.type || entry.type === filter.type)
    && (!filter.severity || entry.severity === filter.severity)
    && (filter.since === undefined || Date.parse(entry.timestamp) >= filter.since);
}

/** `since` as Unix ms or an ISO 8601 string; undefined when it is neither. */
export function parseSince(value: string | undefined): number | undefined | 'invalid' {
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? 'invalid' : parsed;
}
