import { auditRecorded, coreKernel, definePlugin, Type } from '../../sdk/index.ts';
import { registerRoutes } from './routes.ts';
import { AuditLog } from './service.ts';

/** Logs, the security audit log (query and live stream) and the extension relay status. */
export default definePlugin({
  id: 'diagnostics',
  version: '0.1.0',
  requires: [coreKernel],
  config: Type.Object({
    auditCapacity: Type.Integer({ minimum: 100, default: 5000 }),
    extensionRelayPort: Type.Integer({ minimum: 1, maximum: 65535, default: 18792, env: 'SVC_EXTENSION_RELAY_PORT' }),
    extensionPath: Type.Optional(Type.String({ env: 'SVC_EXTENSION_PATH' })),
  }),
  setup(ctx) {
    const audit = new AuditLog(ctx.config.get().auditCapacity);
    ctx.on(auditRecorded, (entry) => audit.record(entry));
    registerRoutes(ctx, ctx.use(coreKernel), audit);
  },
});
