// Cold start and idle memory of the real server (`bin/svc.ts`, what `npm start` runs).
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, spawnServer } from '../test/helpers/server.ts';

export interface ColdStart { runsMs: number[]; idleRssMb: number }

/**
 * Spawns the server `runs` times, each with a fresh state dir, timing spawn → printed "URL:" line; the
 * state dir and port are prepared first so only the process start is timed. The last process is left
 * idle for `idleMs` before its VmRSS is read.
 */
export async function measureColdStart(runs: number, idleMs: number): Promise<ColdStart> {
  const runsMs: number[] = [];
  let idleRssMb = 0;
  for (let i = 0; i < runs; i++) {
    const stateDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
    const port = await freePort();
    const started = performance.now();
    const server = await spawnServer({ stateDir, port });
    runsMs.push(performance.now() - started);
    try {
      if (i === runs - 1) {
        await sleep(idleMs);
        idleRssMb = await rssMb(server.process.pid!);
      }
    } finally {
      await server.stop();
      server.cleanup();
    }
  }
  return { runsMs, idleRssMb };
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  return kb / 1024;
}
