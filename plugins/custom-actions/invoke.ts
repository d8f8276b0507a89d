import { coreSandbox, errors, guestFetch, HttpError, safeFetch, type PluginContext, type RunResult } from '../../sdk/index.ts';
import { fillPlaceholders } from './placeholders.ts';
import type { CustomAction, HttpHandler } from './schema.ts';

const HTTP_LIMITS = { timeoutMs: 15_000, outputChars: 4000 };

export interface InvokeSettings {
  /** host:port pairs exempt from the SSRF guard (explicit test configuration only). */
  allowedHosts: string[];
  codeTimeoutMs: number;
  codeMemoryMb: number;
}

type Params = Record<string, string>;

/**
 * Runs a custom action's handler with its parameters: http through the SSRF guard, shell and code in the
 * sandbox. Throws 400 for a missing required parameter, 503 when a shell/code handler has no sandbox
 * and 403 when the shell permission is off; every other failure is a result with `ok: false`.
 */
export function createInvoker(ctx: PluginContext<any>, settings: InvokeSettings) {
  /** Resolved per call: the sandbox may be missing (flag absent) or come and go with its plugin. */
  const sandbox = () => {
    const service = ctx.tryUse(coreSandbox);
    if (!service) throw errors.unavailable('The sandbox is not running, so shell and code handlers cannot run (see the server log)');
    return service;
  };

  return (action: CustomAction, params: Params, signal?: AbortSignal): Promise<RunResult> => {
    const missing = action.parameters.filter((p) => p.required && !params[p.name]).map((p) => p.name);
    if (missing.length) throw errors.badRequest(`Missing required parameter${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
    const { handler } = action;
    switch (handler.type) {
      case 'http':
        return runHttp(handler, params, settings.allowedHosts, signal);
      case 'shell':
        return sandbox().runShell({ command: handler.command, params, network: handler.network, origin: `custom-action:${action.name}`, signal });
      case 'code':
        return sandbox().runCode({
          code: handler.code, input: { params }, caps: { fetch: guestFetch(settings.allowedHosts) },
          timeoutMs: settings.codeTimeoutMs, memoryMb: settings.codeMemoryMb, signal,
        });
    }
  };
}
export type Invoke = ReturnType<typeof createInvoker>;

/** `{{p}}` URL-encoded in the url, raw in header values and the body; output = the first 4000 characters. */
async function runHttp(handler: HttpHandler, params: Params, allowedHosts: string[], signal?: AbortSignal): Promise<RunResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
  try {
    const response = await safeFetch(fillPlaceholders(handler.url, params, encodeURIComponent), {
      method: handler.method,
      headers: Object.fromEntries(Object.entries(handler.headers ?? {}).map(([name, value]) => [name, fillPlaceholders(value, params)])),
      body: handler.bodyTemplate === undefined ? undefined : fillPlaceholders(handler.bodyTemplate, params),
      timeoutMs: HTTP_LIMITS.timeoutMs, allowedHosts, signal,
    });
    const output = response.text().slice(0, HTTP_LIMITS.outputChars);
    const ok = response.status >= 200 && response.status < 300;
    return { ok, output, ...(!ok && { error: `HTTP ${response.status}` }), durationMs: elapsed() };
  } catch (error) {
    const message = HttpError.is(error) ? `${error.message} (${error.code})` : (error as Error).message;
    return { ok: false, output: '', error: message, durationMs: elapsed() };
  }
}
