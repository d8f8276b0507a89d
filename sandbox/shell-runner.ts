import { spawn } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ShellRequest, ShellResult } from '../sdk/index.ts';
import { bwrapArgs } from './bwrap.ts';
import { toShellScript } from './shell-template.ts';

export const SHELL_DEFAULTS = { timeoutMs: 30_000, maxOutputBytes: 64 * 1024 };

export interface ShellRunnerSettings {
  /** Parent of the per-run scratch directories. */
  scratchRoot: string;
  /** Directories bubblewrap hides. */
  hidden: string[];
  /** Run inside bubblewrap. */
  isolated: boolean;
  /** Unprivileged user for commands when the server runs as root. */
  user?: { uid: number; gid: number };
  defaultTimeoutMs: number;
}

/**
 * Runs one command: `sh -c` with quoted placeholders, env reduced to PATH/HOME/LANG, cwd and HOME in a
 * fresh scratch dir (removed after), stdout+stderr captured together up to a cap, and the whole process
 * group killed at the deadline, on overflow or on abort.
 */
export async function runShellCommand(settings: ShellRunnerSettings, request: ShellRequest): Promise<ShellResult> {
  const started = performance.now();
  const timeoutMs = request.timeoutMs ?? settings.defaultTimeoutMs;
  const maxOutputBytes = request.maxOutputBytes ?? SHELL_DEFAULTS.maxOutputBytes;
  const { script, args } = toShellScript(request.command, request.params);
  const scratch = await mkdtemp(join(settings.scratchRoot, 'run-'));
  try {
    if (settings.user) await chown(scratch, settings.user.uid, settings.user.gid);
    const inner = ['/bin/sh', '-c', script, 'sh', ...args];
    const [file, ...argv] = settings.isolated
      ? ['bwrap', ...bwrapArgs({ scratch, hidden: settings.hidden, network: request.network ?? false }, inner)]
      : inner;
    const child = spawn(file!, argv, {
      cwd: scratch,
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: scratch, LANG: process.env.LANG ?? 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Own process group, so the deadline can kill everything the command started.
      detached: true,
      ...settings.user,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stopped: 'timeout' | 'overflow' | 'aborted' | undefined;
    const killGroup = () => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } };
    const stop = (why: NonNullable<typeof stopped>) => { stopped ??= why; killGroup(); };
    const collect = (chunk: Buffer) => {
      if (size >= maxOutputBytes) return;
      chunks.push(chunk.subarray(0, maxOutputBytes - size));
      size += chunk.length;
      if (size > maxOutputBytes) stop('overflow');
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = () => stop('aborted');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) onAbort();
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => {
        // Background processes may still hold the pipes open: end the group, then wait for the pipes
        // (briefly: a process that left the group would otherwise keep them open for good).
        killGroup();
        child.once('close', () => resolve({ code, signal }));
        setTimeout(() => { child.stdout!.destroy(); child.stderr!.destroy(); }, 500).unref();
      });
    });
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
    const output = Buffer.concat(chunks).toString('utf8');
    const error = exit.error ? `Could not start the command: ${exit.error.message}`
      : stopped === 'timeout' ? `Timed out after ${timeoutMs} ms`
      : stopped === 'overflow' ? `Output exceeds ${maxOutputBytes} bytes; the command was stopped`
      : stopped === 'aborted' ? 'Cancelled'
      : exit.code !== 0 ? (exit.signal ? `Killed by ${exit.signal}` : `Exited with code ${exit.code}`)
      : undefined;
    return {
      ok: error === undefined, output, ...(error !== undefined && { error }), exitCode: exit.code,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000, sandboxed: settings.isolated,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
