import type { LogEntry } from '../sdk/core.ts';
import type { LogFields, Logger, LogLevel } from '../sdk/types.ts';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogSinkOptions {
  /** Entries kept in memory for `/api/logs`. */
  capacity?: number;
  /** Lowest level written to the output stream. */
  level?: LogLevel;
  /** `json`: one JSON object per line; `pretty`: human-readable lines. */
  format?: 'json' | 'pretty';
  write?: (line: string) => void;
}

/** Structured logger: every entry goes to a ring buffer and, above the level, to the output. */
export class LogSink {
  private readonly buffer: LogEntry[] = [];
  private readonly capacity: number;
  private readonly level: number;
  private listener: ((entry: LogEntry) => void) | undefined;

  constructor(private readonly options: LogSinkOptions = {}) {
    this.capacity = options.capacity ?? 2000;
    this.level = order[options.level ?? 'info'];
  }

  entries(): readonly LogEntry[] { return this.buffer; }
  onEntry(listener: ((entry: LogEntry) => void) | undefined): void { this.listener = listener; }

  logger(source: string): Logger {
    const at = (level: LogLevel) => (message: string, fields?: LogFields) => this.write(level, source, message, fields);
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  }

  private write(level: LogLevel, source: string, message: string, fields: LogFields = {}): void {
    const { tags = [], ...rest } = fields;
    const entry: LogEntry = { timestamp: Date.now(), level, source, tags, message };
    this.buffer.push(entry);
    if (this.buffer.length > this.capacity) this.buffer.splice(0, this.buffer.length - this.capacity);
    if (order[level] >= this.level) {
      const extra = Object.keys(rest).length ? rest : undefined;
      const line = this.options.format === 'json'
        ? JSON.stringify({ ...entry, ...(extra && { fields: serializable(extra) }) })
        : `${new Date(entry.timestamp).toISOString()} ${level.toUpperCase().padEnd(5)} [${source}] ${message}${extra ? ' ' + JSON.stringify(serializable(extra)) : ''}`;
      (this.options.write ?? ((l: string) => process.stderr.write(l + '\n')))(line);
    }
    this.listener?.(entry);
  }
}

function serializable(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = v instanceof Error ? { message: v.message, stack: v.stack } : v;
  return out;
}
