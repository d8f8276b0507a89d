// "Another program" that owns a node:http server and mounts the kernel inside it: /api/ and /v1/
// requests and /ws upgrades go to the kernel; every other request and upgrade stays with the host.
import { createServer, type ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createKernel } from '../../kernel/index.ts';
import { defaultPlugins } from '../../plugins/index.ts';
import { definePlugin, Type } from '../../sdk/index.ts';

export interface Embedded { url: string; close(): Promise<void> }

const KERNEL_PREFIXES = ['/api/', '/v1/'];

/** Plugins need not live in files: the host adds one inline, next to the default bundle. */
const hostInfo = definePlugin({
  id: 'host-info',
  version: '1.0.0',
  setup(ctx) {
    ctx.route({
      method: 'GET', path: '/v1/host', access: 'public', summary: 'Who embeds this kernel',
      schema: { response: { 200: Type.Object({ host: Type.String(), pid: Type.Integer() }) } },
      handler: () => ({ host: 'embed-example', pid: process.pid }),
    });
  },
});

/** Starts the host program on loopback with the kernel mounted; `close` stops both. */
export async function startEmbedded({ port = 0, stateDir }: { port?: number; stateDir: string }): Promise<Embedded> {
  const kernel = createKernel({ stateDir, plugins: [...defaultPlugins, hostInfo], log: { level: 'warn' } });
  await kernel.start();
  const api = kernel.callback();

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (KERNEL_PREFIXES.some((prefix) => path.startsWith(prefix))) api(req, res);
    else hostRoutes(req.method, path, res);
  });
  // The kernel answers /ws; it returns false for other paths, which this host does not serve.
  server.on('upgrade', (req, socket, head) => { if (!kernel.handleUpgrade(req, socket, head)) socket.destroy(); });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', resolve); });

  const { port: bound } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${bound}`,
    async close() {
      // The kernel first (it closes its WebSocket clients), then the host's server and idle keep-alive sockets.
      await kernel.stop();
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeIdleConnections(); });
    },
  };
}

/** The host program's own pages, outside the kernel's prefixes. */
function hostRoutes(method: string | undefined, path: string, res: ServerResponse): void {
  const found = method === 'GET' && path === '/';
  res.writeHead(found ? 200 : 404, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(found ? 'Host program home page; the agent API lives under /api/ and /v1/.\n' : `Host program: nothing at ${path}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const embedded = await startEmbedded({ port: Number(process.env.PORT ?? 8080), stateDir: process.env.SVC_STATE_DIR ?? join(homedir(), '.svc-embed') });
  console.log(`Host program on ${embedded.url} (try / , /api/health, /v1/host, ws ${embedded.url.replace('http', 'ws')}/ws)`);
  process.once('SIGINT', () => void embedded.close());
}
