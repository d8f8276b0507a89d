import { errors, Type, type PluginContext } from '../../sdk/index.ts';
import type { PairingService, PairResult } from './service.ts';

const failures: Record<Exclude<PairResult, { ok: true }>['reason'], () => Error> = {
  'not-enabled': () => errors.badRequest('Pairing is not enabled: no API token is configured', undefined, 'PAIRING_NOT_ENABLED'),
  disabled: () => errors.forbidden('Pairing is disabled', 'PAIRING_DISABLED'),
  invalid: () => errors.forbidden('Invalid pairing code', 'INVALID_CREDENTIALS'),
  expired: () => errors.gone('Pairing code expired; a new code was generated and written to the server log', 'TOKEN_EXPIRED'),
  'rate-limited': () => errors.rateLimited('Too many pairing attempts; try again in 10 minutes', 600),
};

export function registerRoutes(ctx: PluginContext, pairing: PairingService): void {
  ctx.route({
    method: 'GET', path: '/api/auth/status', access: 'public', tags: ['auth'],
    summary: 'Whether a token is required; issues a pairing code (printed in the server log) when pairing is on',
    schema: {
      response: { 200: Type.Object({ required: Type.Boolean(), pairingEnabled: Type.Boolean(), expiresAt: Type.Union([Type.Number(), Type.Null()]) }) },
    },
    handler: () => pairing.status(),
  });

  ctx.route({
    method: 'POST', path: '/api/auth/pair', access: 'public', tags: ['auth'],
    summary: 'Exchange the pairing code for the API token',
    description: 'Codes are normalized (non-alphanumerics stripped, upper-cased). 400 pairing not enabled; 403 disabled or invalid code; 410 code expired (a new one is issued); 429 over 5 attempts per IP per 10 minutes.',
    schema: {
      body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) }),
      response: { 200: Type.Object({ token: Type.String() }) },
    },
    handler({ body, ip }) {
      const result = pairing.pair(body.code, ip);
      if (result.ok) {
        ctx.audit({ type: 'policy_decision', severity: 'info', summary: 'Pairing succeeded: API token issued', metadata: { ip } });
        return { token: result.token };
      }
      ctx.audit({ type: 'policy_decision', severity: result.reason === 'rate-limited' ? 'error' : 'warn', summary: `Pairing refused: ${result.reason}`, metadata: { ip } });
      throw failures[result.reason]();
    },
  });
}
