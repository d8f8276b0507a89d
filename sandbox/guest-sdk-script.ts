import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ENTRY = fileURLToPath(new URL('./guest-sdk.ts', import.meta.url));

/** What compiled guests read `@svc/sdk` from; `boot` (guest-sdk.ts) defines it in each module isolate. */
export const GUEST_SDK_GLOBAL = '__svcSdk';
/** The names `@svc/sdk` (alias `svc`) exports to guest code. */
export const GUEST_SDK_EXPORTS = ['definePlugin', 'Type', 'reply', 'errors', 'HttpError'] as const;

/**
 * Bundles guest-sdk.ts with TypeBox into one script whose completion value is its `boot` function. The
 * bundle is wrapped in a strict function, so nothing of it (in particular `boot`) lands on the guest's
 * global object. Built once per sandbox, on first use (about 150 ms).
 */
export async function buildGuestSdkScript(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY], bundle: true, write: false, format: 'cjs', platform: 'neutral', mainFields: ['module', 'main'],
    target: 'es2022', minify: true, legalComments: 'none', logLevel: 'silent',
  });
  return `(function () { 'use strict'; const module = { exports: {} }; ${result.outputFiles[0]!.text}\nreturn module.exports.boot; })()`;
}

/** The source of the virtual `@svc/sdk` module compiled guests import. */
export function guestSdkModule(): string {
  return [
    `const sdk = globalThis.${GUEST_SDK_GLOBAL};`,
    ...GUEST_SDK_EXPORTS.map((name) => `export const ${name} = sdk.${name};`),
    'export default sdk;',
  ].join('\n');
}
