#!/usr/bin/env -S node --no-node-snapshot --import tsx
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createKernel, kernelOptionsFromEnv } from '../kernel/index.ts';
import { pairingService } from '../plugins/auth/service.ts';
import { defaultPlugins } from '../plugins/index.ts';

const HELP = `svc — plugin-kernel agent service

Usage: npm start [-- options]
       node --no-node-snapshot --import tsx bin/svc.ts [options]

Options:
  --port <n>          Port (default SVC_API_PORT or 31337; SVC_PORT or 2138 when NODE_ENV=production)
  --host <addr>       Bind address (default SVC_API_BIND or 127.0.0.1; non-loopback needs SVC_API_TOKEN)
  --state-dir <dir>   State directory (default SVC_STATE_DIR or ~/.svc)
  --plugin <file>     Also load a plugin module from disk (repeatable)
  -h, --help          Show this help
  -v, --version       Print the version

Environment:
  SVC_API_TOKEN             API token; when unset, loopback requests need none
  SVC_ALLOW_WS_QUERY_TOKEN  1: /ws may carry the token as ?token=
  SVC_PAIRING_DISABLED      1: no pairing codes
  SVC_ALLOWED_HOSTS         Extra Host names accepted on a loopback bind (comma-separated)
  SVC_ALLOWED_ORIGINS       Extra CORS origins (comma-separated)
  SVC_LOG_FORMAT            json for one JSON object per log line
  SVC_LOG_LEVEL             debug | info | warn | error
`;

const { values } = parseArgs({
  options: {
    port: { type: 'string' }, host: { type: 'string' }, 'state-dir': { type: 'string' },
    plugin: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' },
  },
});
const version = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version as string;
if (values.help) { process.stdout.write(HELP); process.exit(0); }
if (values.version) { process.stdout.write(`${version}\n`); process.exit(0); }

const settings = kernelOptionsFromEnv(process.env);
const kernel = createKernel({
  ...settings.kernel, version, plugins: defaultPlugins,
  ...(values['state-dir'] && { stateDir: resolve(values['state-dir']) }),
});
try {
  const { failed } = await kernel.start();
  for (const file of values.plugin ?? []) await kernel.importPlugin(resolve(file));
  const { url } = await kernel.listen({ port: values.port ? Number(values.port) : settings.port, host: values.host ?? settings.host, handleSignals: true });
  const pairing = kernel.resolve(pairingService)?.currentCode();
  const active = kernel.plugins().filter((p) => p.state === 'active').length;
  process.stdout.write([
    `svc ${version} ready in ${Math.round(performance.now())} ms (since process start)`,
    `  URL:        ${url}`,
    `  State dir:  ${kernel.stateDir}`,
    `  Auth:       ${kernel.auth.tokenConfigured ? 'API token required (SVC_API_TOKEN)' : 'no token configured: open to loopback clients'}`,
    `  Pairing:    ${pairing ? `code ${pairing.code}, valid until ${new Date(pairing.expiresAt).toLocaleTimeString()}` : 'off'}`,
    `  Plugins:    ${active} active${failed.length ? `, ${failed.length} failed (${failed.map((f) => f.id).join(', ')})` : ''}`,
    `  API docs:   ${url}/api/openapi.json`,
    '',
  ].join('\n'));
} catch (error) {
  process.stderr.write(`svc failed to start: ${(error as Error).message}\n`);
  await kernel.stop().catch(() => undefined);
  process.exit(1);
}
