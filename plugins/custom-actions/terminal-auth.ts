import { errors, type AuthService, type PluginContext, type RouteRequest } from '../../sdk/index.ts';
import type { Handler } from './schema.ts';

/** Handler types that run code on this machine and so need terminal authorization. */
const needsTerminal = (type: Handler['type']) => type === 'shell' || type === 'code';

/**
 * The spec's terminal authorization: when SVC_TERMINAL_RUN_TOKEN is configured, creating, updating or
 * testing a shell/code action needs it, in the body's `terminalToken`, the X-Svc-Terminal-Token header or
 * the standard token headers (compared in constant time); otherwise 403. Every decision is audited.
 */
export function authorizeTerminal(ctx: PluginContext<any>, auth: AuthService, configured: string | undefined) {
  return (request: RouteRequest, bodyToken: string | undefined, type: Handler['type'], operation: 'create' | 'update' | 'test'): void => {
    if (!configured || !needsTerminal(type)) return;
    const header = request.headers['x-svc-terminal-token'];
    const candidates = [bodyToken, typeof header === 'string' ? header : undefined, request.presentedToken];
    const granted = candidates.some((candidate) => candidate !== undefined && auth.equal(candidate, configured));
    ctx.audit({
      type: 'policy_decision', severity: granted ? 'info' : 'warn',
      summary: `Terminal authorization ${granted ? 'granted' : 'denied'} to ${operation} a ${type} custom action`,
      metadata: { operation, handlerType: type, ip: request.ip },
    });
    if (!granted) {
      throw errors.forbidden(`Terminal authorization required to ${operation} a ${type} action: send terminalToken or X-Svc-Terminal-Token (SVC_TERMINAL_RUN_TOKEN)`, 'TERMINAL_AUTH_REQUIRED');
    }
  };
}
export type TerminalCheck = ReturnType<typeof authorizeTerminal>;
