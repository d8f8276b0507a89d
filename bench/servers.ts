// The two servers the HTTP bench compares: the same handler behind the kernel (token auth, TypeBox
// query validation with coercion and defaults, plugin route table) and behind bare Koa + @koa/router.
import type { Server } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { createKernel } from '../kernel/index.ts';
import { definePlugin, Type } from '../sdk/index.ts';

export const BENCH_PATH = '/api/bench/items';
export const BENCH_QUERY = '?limit=10';

export interface Target { url: string; close(): Promise<void> }

/** The shared handler logic: a small page of items, as a list endpoint would return. */
function page(limit: number, offset: number) {
  return { items: Array.from({ length: limit }, (_, i) => ({ id: offset + i, name: `item-${offset + i}` })), limit, offset };
}

const benchPlugin = definePlugin({
  id: 'bench',
  version: '1.0.0',
  setup(ctx) {
    ctx.route({
      method: 'GET', path: BENCH_PATH, access: 'token',
      schema: { query: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100 }), offset: Type.Integer({ minimum: 0, default: 0 }) }) },
      handler: ({ query }) => page(query.limit, query.offset),
    });
  },
});

/** The kernel with only the bench plugin, an API token configured, listening on loopback. */
export async function startKernel(token: string, stateDir: string): Promise<Target> {
  const kernel = createKernel({ plugins: [benchPlugin], auth: { token }, stateDir, env: {}, log: { level: 'error' } });
  await kernel.start();
  const { url } = await kernel.listen({ port: 0 });
  return { url, close: () => kernel.stop() };
}

/** The baseline: Koa + @koa/router and the same handler; query parsing by hand, no auth, no schema. */
export async function startBare(): Promise<Target> {
  const app = new Koa();
  const router = new Router();
  router.get(BENCH_PATH, (ctx) => {
    ctx.body = page(Number(ctx.query.limit), Number(ctx.query.offset ?? 0));
  });
  app.use(router.routes());
  const server = await new Promise<Server>((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
