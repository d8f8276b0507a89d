import { open, readFile, type FileHandle } from 'node:fs/promises';

export interface JournalEntry { s: number; q: [string, unknown[]][] }

/**
 * Append-only redo log of committed transactions, one JSON line each. Appends that arrive while a
 * write is in flight are group-committed: one write and one fdatasync for the batch.
 */
export class Journal {
  private handle!: FileHandle;
  private queue: string[] = [];
  private waiters: { resolve(): void; reject(error: unknown): void }[] = [];
  private draining: Promise<void> | undefined;
  bytes = 0;

  constructor(private readonly path: string) {}

  /**
   * Opens for append and returns the complete entries already there. A torn last line (no newline or
   * not JSON) is dropped and cut off the file, so the next append starts on a line of its own.
   */
  async open(): Promise<JournalEntry[]> {
    let text = '';
    try { text = await readFile(this.path, 'utf8'); } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    this.handle = await open(this.path, 'a', 0o600);
    const entries: JournalEntry[] = [];
    let valid = 0;
    for (let start = 0, end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
      const line = text.slice(start, end);
      if (line) {
        try { entries.push(JSON.parse(line, reviveBlobs)); } catch { break; }
      }
      valid += Buffer.byteLength(line) + 1;
    }
    if (valid < Buffer.byteLength(text)) {
      await this.handle.truncate(valid);
      await this.handle.sync();
    }
    this.bytes = valid;
    return entries;
  }

  append(entry: JournalEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push(JSON.stringify(entry, encodeBlobs) + '\n');
      this.waiters.push({ resolve, reject });
      this.draining ??= this.drain();
    });
  }

  /** Empties the log after a snapshot made it redundant. */
  async truncate(): Promise<void> {
    await this.draining;
    await this.handle.truncate(0);
    await this.handle.sync();
    this.bytes = 0;
  }

  async close(): Promise<void> {
    await this.draining;
    await this.handle.close();
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const chunk = this.queue.splice(0).join('');
      const waiters = this.waiters.splice(0);
      try {
        await this.handle.write(chunk);
        await this.handle.datasync();
        this.bytes += Buffer.byteLength(chunk);
        for (const w of waiters) w.resolve();
      } catch (error) {
        for (const w of waiters) w.reject(error);
      }
    }
    this.draining = undefined;
  }
}

function encodeBlobs(this: unknown, _key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? { $b64: Buffer.from(value).toString('base64') } : value;
}
function reviveBlobs(_key: string, value: unknown): unknown {
  return value && typeof value === 'object' && typeof (value as { $b64?: unknown }).$b64 === 'string'
    ? new Uint8Array(Buffer.from((value as { $b64: string }).$b64, 'base64'))
    : value;
}
