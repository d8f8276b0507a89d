import { cloudCoding, definePlugin } from '../../sdk/index.ts';
import { registerCloudCodingRoutes } from './routes.ts';

/** Coding-agent coordinator status and cloud coding containers; fails closed until a cloud account is connected. */
export default definePlugin({
  id: 'cloud-coding',
  version: '0.1.0',
  description: 'Coding agents and cloud coding containers: an empty coordinator (no orchestrator ships), promotions through a connected cloud, container routes that fail closed',
  optional: [cloudCoding],
  setup(ctx) {
    registerCloudCodingRoutes(ctx);
  },
});
