import { Type } from '../../sdk/index.ts';

/** Config fields every vendor plugin shares, named `<PREFIX>_TIMEOUT_MS` and `<PREFIX>_MAX_RETRIES`. */
export const timeoutSetting = (prefix: string) => ({
  timeoutMs: Type.Integer({
    minimum: 100, default: 60_000, env: `${prefix}_TIMEOUT_MS`,
    description: 'Longest wait for the vendor to answer or send the next streamed piece (ms); then 504 MODEL_TIMEOUT',
  }),
});

export const retrySetting = (prefix: string) => ({
  maxRetries: Type.Integer({
    minimum: 0, maximum: 10, default: 2, env: `${prefix}_MAX_RETRIES`,
    description: 'Retries of connection failures, 429 and 5xx before the first streamed byte (by the vendor SDK)',
  }),
});
