import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { KernelOptions } from './kernel.ts';

export interface ServerSettings { kernel: KernelOptions; port: number; host: string }

const list = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);

/** Maps the documented environment variables onto kernel and listen options. */
export function kernelOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ServerSettings {
  const nodeEnv = (env.NODE_ENV ?? '').toLowerCase();
  const production = nodeEnv === 'production';
  const port = production ? Number(env.SVC_PORT || 2138) : Number(env.SVC_API_PORT || 31337);
  return {
    port,
    host: env.SVC_API_BIND || '127.0.0.1',
    kernel: {
      env,
      production,
      stateDir: resolve(env.SVC_STATE_DIR || join(homedir(), '.svc')),
      secretKey: env.SVC_SECRET_KEY || undefined,
      auth: {
        token: env.SVC_API_TOKEN?.trim() || undefined,
        allowWsQueryToken: env.SVC_ALLOW_WS_QUERY_TOKEN === '1',
        devBypass: (nodeEnv === 'development' || nodeEnv === 'dev') && env.SVC_DEV_AUTH_BYPASS === '1',
        production,
        allowedHosts: list(env.SVC_ALLOWED_HOSTS),
        allowedOrigins: (env.SVC_ALLOWED_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
        trustProxy: env.SVC_TRUST_PROXY === '1',
      },
      log: { level: (env.SVC_LOG_LEVEL as 'info') || 'info', format: env.SVC_LOG_FORMAT === 'json' ? 'json' : 'pretty' },
    },
  };
}
