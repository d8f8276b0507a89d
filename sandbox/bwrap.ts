import { spawn } from 'node:child_process';

export interface Jail {
  /** Writable working directory, bound at the same path. */
  scratch: string;
  /** Directories hidden behind an empty tmpfs (the state dir with its keys, the server user's home). */
  hidden: string[];
  network: boolean;
}

/**
 * The bubblewrap command line around `command`: read-only root, private /tmp, fresh /dev and /proc,
 * hidden directories, a writable scratch dir, own PID/IPC/UTS namespaces, no network unless allowed,
 * and a new session (no terminal injection). Every process dies with bwrap.
 */
export function bwrapArgs(jail: Jail, command: string[]): string[] {
  return [
    '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp',
    ...jail.hidden.flatMap((dir) => ['--tmpfs', dir]),
    '--bind', jail.scratch, jail.scratch, '--chdir', jail.scratch,
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', ...(jail.network ? [] : ['--unshare-net']),
    '--die-with-parent', '--new-session', '--',
    ...command,
  ];
}

/** Whether bwrap is installed and can build this jail here (namespaces may be unavailable in containers). */
export function bwrapWorks(jail: Jail, user: { uid: number; gid: number } | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('bwrap', bwrapArgs(jail, ['/bin/sh', '-c', 'exit 0']), { stdio: 'ignore', cwd: jail.scratch, ...user });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}
