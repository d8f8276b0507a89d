import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'svc-shell-';

/**
 * The parent of this process's per-command scratch dirs, named after its pid. Roots left behind by
 * processes that are gone (killed with -9) are removed first; those of live processes are left alone.
 */
export async function createScratchRoot(): Promise<string> {
  const base = tmpdir();
  for (const name of await readdir(base)) {
    const pid = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid && !alive(Number(pid))) await rm(join(base, name), { recursive: true, force: true });
  }
  const root = await mkdtemp(join(base, `${PREFIX}${process.pid}-`));
  await chmod(root, 0o711); // the unprivileged command user must reach its own run dir inside
  return root;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
