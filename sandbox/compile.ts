import { posix } from 'node:path';
import { build, type Loader, type Message, type OnResolveResult, type Plugin } from 'esbuild';
import type { CompileMessage, CompileRequest, CompileResult } from '../sdk/index.ts';
import { guestSdkModule } from './guest-sdk-script.ts';

const SDK_SPECIFIERS = new Set(['@svc/sdk', 'svc']);
const LOADERS: Record<string, Loader> = { '.ts': 'ts', '.js': 'js', '.mjs': 'js', '.json': 'json' };
const INDEX_FILES = ['index.ts', 'index.js', 'index.mjs'];
/** A project larger than this is refused rather than bundled (the VFS quota is 50 MiB). */
const MAX_SOURCE_BYTES = 32 * 1024 * 1024;
const VFS = 'vfs';

/**
 * Bundles a project's virtual files with esbuild. Every import goes through `resolve` below: relative
 * imports of project files and `@svc/sdk` (alias `svc`) resolve, anything else (packages, node builtins,
 * absolute paths, file: URLs) is an error naming the import, so esbuild never touches the host
 * filesystem. `tsconfigRaw` keeps it from looking for a tsconfig on disk.
 */
export async function compileProject(request: CompileRequest): Promise<CompileResult> {
  const started = performance.now();
  const finish = (ok: boolean, code: string, errors: CompileMessage[], warnings: CompileMessage[]): CompileResult =>
    ({ ok, code, errors, warnings, durationMs: Math.round((performance.now() - started) * 1000) / 1000 });
  const entry = projectPath(request.entry);
  if (!entry) return finish(false, '', [unplaced(request.entry, 'The entry must be a project path such as src/index.ts')], []);
  const sources = new Map<string, Promise<Uint8Array | string | undefined>>();
  let total = 0;
  const read = (path: string) => {
    let pending = sources.get(path);
    if (!pending) {
      pending = request.read(path).then((content) => {
        total += typeof content === 'string' ? Buffer.byteLength(content) : content?.byteLength ?? 0;
        if (total > MAX_SOURCE_BYTES) throw new Error(`The project's sources exceed ${MAX_SOURCE_BYTES} bytes`);
        return content;
      });
      sources.set(path, pending);
    }
    return pending;
  };
  try {
    const result = await build({
      entryPoints: [entry], bundle: true, write: false, format: request.format ?? 'esm', target: request.target ?? 'es2022',
      platform: 'neutral', minify: request.minify ?? false, charset: 'utf8', tsconfigRaw: {}, logLevel: 'silent',
      plugins: [virtualFiles(entry, read)],
    });
    return finish(true, result.outputFiles[0]!.text, [], result.warnings.map(toMessage));
  } catch (error) {
    const failure = error as { errors?: Message[]; warnings?: Message[] };
    if (!failure.errors) return finish(false, '', [unplaced(entry, scrub((error as Error).message))], []);
    return finish(false, '', failure.errors.map(toMessage), (failure.warnings ?? []).map(toMessage));
  }
}

function virtualFiles(entry: string, read: (path: string) => Promise<Uint8Array | string | undefined>): Plugin {
  return {
    name: 'svc-virtual-files',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args): Promise<OnResolveResult> => {
        // esbuild may hand the entry back as "./<entry>"; the checked path is used instead.
        if (args.kind === 'entry-point') return resolveFile(entry, read, `The entry file ${entry} does not exist`);
        if (SDK_SPECIFIERS.has(args.path)) return { path: 'sdk', namespace: 'svc-sdk' };
        if (!/^\.\.?\//.test(args.path) || args.namespace !== VFS) {
          return refuse(`Import "${args.path}" is not allowed: a plugin imports project files (relative paths) and @svc/sdk only`);
        }
        const target = projectPath(posix.join(posix.dirname(args.importer), args.path));
        if (!target) return refuse(`Import "${args.path}" leaves the project`);
        return resolveFile(target, read, `Cannot find "${args.path}" from ${args.importer}`);
      });
      b.onLoad({ filter: /.*/, namespace: 'svc-sdk' }, () => ({ contents: guestSdkModule(), loader: 'js' }));
      b.onLoad({ filter: /.*/, namespace: VFS }, async (args) => ({ contents: (await read(args.path))!, loader: LOADERS[posix.extname(args.path)]! }));
    },
  };
}

/** The first existing file among a path's candidates (`x`, `x.ts`, …, `x/index.ts`; `x.js` may name `x.ts`). */
async function resolveFile(path: string, read: (path: string) => Promise<unknown>, missing: string): Promise<OnResolveResult> {
  const extension = posix.extname(path);
  const candidates = extension in LOADERS
    ? [path, ...(extension === '.js' ? [`${path.slice(0, -3)}.ts`] : [])]
    : [...Object.keys(LOADERS).map((ext) => path + ext), ...INDEX_FILES.map((index) => `${path}/${index}`), path];
  for (const candidate of candidates) {
    try {
      if (await read(candidate) === undefined) continue;
    } catch (error) {
      return refuse(`Cannot read ${candidate}: ${scrub((error as Error).message)}`);
    }
    if (!(posix.extname(candidate) in LOADERS)) return refuse(`Cannot import ${candidate}: only .ts, .js, .mjs and .json files can be imported`);
    return { path: candidate, namespace: VFS };
  }
  return refuse(missing);
}

/** A relative POSIX path inside the project (`./a/../b.ts` → `b.ts`), or undefined when it leaves it. */
function projectPath(path: string): string | undefined {
  const normal = posix.normalize(path);
  if (!normal || normal === '.' || normal.startsWith('../') || normal === '..' || posix.isAbsolute(normal) || normal.includes('\0')) return undefined;
  return normal;
}

const refuse = (text: string): OnResolveResult => ({ errors: [{ text }] });
const unplaced = (file: string, message: string): CompileMessage => ({ file, line: 0, column: 0, message });

function toMessage(message: Message): CompileMessage {
  const notes = message.notes.map((note) => note.text).filter(Boolean);
  return {
    file: message.location ? stripNamespace(message.location.file) : '',
    line: message.location?.line ?? 0,
    column: message.location?.column ?? 0,
    message: scrub([message.text, ...notes].join(' ')),
  };
}

const stripNamespace = (file: string) => file.replace(/^(vfs|svc-sdk):/, '');
const HOST_DIRS = [...new Set([process.cwd(), new URL('..', import.meta.url).pathname.replace(/\/$/, '')])];

/** Messages name project files only: namespace prefixes go, and any host directory is blanked out. */
function scrub(text: string): string {
  let out = text.replace(/\b(vfs|svc-sdk):/g, '');
  for (const dir of HOST_DIRS) out = out.split(dir).join('<host>');
  return out;
}
