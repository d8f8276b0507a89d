import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { PluginDef } from '../sdk/types.ts';
import { writeFileAtomic } from '../sdk/atomic-file.ts';

/**
 * Loads a plugin module from disk as it is now. Re-importing a changed .ts file returns the stale module
 * (F6), so the file is bundled to a content-hashed .mjs; packages stay external, resolved to absolute
 * paths so the bundle shares the host's module instances wherever it is written.
 */
export async function importPluginFile(file: string, outDir: string): Promise<PluginDef<any>> {
  const result = await build({
    entryPoints: [file], bundle: true, write: false, platform: 'node', format: 'esm', target: 'node20',
    plugins: [externalPackages], logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const target = join(outDir, `${basename(file).replace(/\.[^.]+$/, '')}-${hash}.mjs`);
  await writeFileAtomic(target, code, 0o644);
  const module = await import(pathToFileURL(target).href);
  const def = module.default as PluginDef<any> | undefined;
  if (!def || typeof def.setup !== 'function' || typeof def.id !== 'string') throw new Error(`${file} has no default-exported plugin definition`);
  return def;
}

const externalPackages: Plugin = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'resolving' || args.path.startsWith('node:')) return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'resolving' });
      if (resolved.errors.length) return { errors: resolved.errors };
      return { path: resolved.external ? args.path : pathToFileURL(resolved.path).href, external: true };
    });
  },
};
