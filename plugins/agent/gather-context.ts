import type { ContextProvider, Logger, ProviderAccess, ProviderResult } from '../../sdk/index.ts';
import { raceAbort } from './abortable.ts';

export interface GatherInput {
  providers: ContextProvider[];
  message: { text: string; roomId: string };
  purpose: string;
  stepId: string;
  /** Each provider gets this long; a slow or failing provider is skipped, never fatal. */
  timeoutMs: number;
  signal: AbortSignal;
  record(access: Omit<ProviderAccess, 'id' | 'trajectoryId' | 'timestamp' | 'createdAt'>): void;
  log: Logger;
}

const summary = (result: ProviderResult | undefined) => ({
  text: result?.text.slice(0, 2000) ?? '',
  items: (result?.items ?? []).slice(0, 10).map(({ id, title, score }) => ({ id, title, score })),
});

/** Asks every context provider in parallel; each access is recorded as a trajectory step. */
export async function gatherContext(input: GatherInput): Promise<{ name: string; result: ProviderResult }[]> {
  const results = await Promise.all(input.providers.map(async (provider) => {
    const started = performance.now();
    const deadline = new AbortController();
    const onAbort = () => deadline.abort(input.signal.reason);
    input.signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => deadline.abort(new Error(`timed out after ${input.timeoutMs} ms`)), input.timeoutMs);
    const base = { stepId: input.stepId, providerName: provider.name, purpose: input.purpose };
    try {
      const result = await raceAbort(provider.get(input.message, deadline.signal), deadline.signal);
      input.record({ ...base, data: { query: input.message.text, latencyMs: Math.round(performance.now() - started), ...summary(result) } });
      return result && result.text.trim() ? { name: provider.name, result } : undefined;
    } catch (error) {
      if (input.signal.aborted) throw error;
      const message = (error as Error)?.message ?? String(error);
      input.log.warn(`Context provider "${provider.name}" failed: ${message}`, { tags: ['agent'] });
      input.record({ ...base, data: { query: input.message.text, latencyMs: Math.round(performance.now() - started), error: message } });
      return undefined;
    } finally {
      clearTimeout(timer);
      input.signal.removeEventListener('abort', onAbort);
    }
  }));
  return results.filter((r) => r !== undefined);
}
