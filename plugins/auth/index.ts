import { coreAuth, definePlugin, Type } from '../../sdk/index.ts';
import { registerRoutes } from './routes.ts';
import { ATTEMPT_WINDOW_MS, createPairing, pairingService } from './service.ts';

/** Auth status and the pairing flow that hands the API token to a new dashboard. */
export default definePlugin({
  id: 'auth',
  version: '0.1.0',
  requires: [coreAuth],
  provides: [pairingService],
  config: Type.Object({
    pairingDisabled: Type.Boolean({ default: false, env: 'SVC_PAIRING_DISABLED', description: '1 disables pairing' }),
    cloudProvisioned: Type.Boolean({ default: false, env: 'SVC_CLOUD_PROVISIONED' }),
    codeTtlMs: Type.Integer({ minimum: 1000, default: 600_000, env: 'SVC_PAIRING_CODE_TTL_MS', description: 'Pairing code validity' }),
  }),
  setup(ctx) {
    const pairing = createPairing(ctx.use(coreAuth), ctx.config.get(), ctx.log);
    ctx.provide(pairingService, pairing);
    ctx.setInterval(() => pairing.pruneAttempts(), ATTEMPT_WINDOW_MS);
    registerRoutes(ctx, pairing);
  },
});
