/**
 * isolated-vm 5 on Node 20 needs the process started with --no-node-snapshot; without it, it loads and
 * then crashes the process later (F4). True when the flag is on the command line or in NODE_OPTIONS.
 */
export function hasNoSnapshotFlag(execArgv: string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  return execArgv.includes('--no-node-snapshot') || nodeOptions.split(/\s+/).includes('--no-node-snapshot');
}

export const MISSING_FLAG_MESSAGE = 'The sandbox needs Node started with --no-node-snapshot (isolated-vm crashes without it): run '
  + '`node --no-node-snapshot --import tsx bin/svc.ts` (what `npm start` does) or set NODE_OPTIONS=--no-node-snapshot. '
  + 'Sandboxed code and shell commands are unavailable; their routes answer 503.';
