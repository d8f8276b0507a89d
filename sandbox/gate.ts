import { errors } from '../sdk/index.ts';

/**
 * Bounds how many runs of one kind are in flight. Past the bound a caller is refused at once (429)
 * rather than queued, so a flood of hostile runs cannot build an ever-growing backlog.
 */
export function createGate(max: number, what: string) {
  let active = 0;
  return {
    enter(): () => void {
      if (active >= max) throw errors.rateLimited(`Too many ${what} in progress (limit ${max}); try again shortly`, 1);
      active++;
      let left = false;
      return () => { if (!left) { left = true; active--; } };
    },
  };
}
