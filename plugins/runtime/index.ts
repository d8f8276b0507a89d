import { coreKernel, definePlugin } from '../../sdk/index.ts';
import { registerRoutes } from './routes.ts';

/** OpenAPI, health and runtime introspection. */
export default definePlugin({
  id: 'runtime',
  version: '0.1.0',
  requires: [coreKernel],
  setup(ctx) {
    registerRoutes(ctx, ctx.use(coreKernel));
  },
});
