import { reply, Type, type PluginContext } from '../../sdk/index.ts';
import { GUEST_ROUTE_PREFIX } from './guest-plugin.ts';
import { DEFAULT_OUT_FILE, DEFAULT_TARGET, type VfsPlugins } from './service.ts';

const TAGS = ['workbench-vfs-plugins'];
const BASE = '/api/workbench/vfs';
const ProjectParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'VFS project id' }) });
const VfsPath = (description: string) => Type.String({ minLength: 1, maxLength: 512, description });
const Message = Type.Object({ file: Type.String(), line: Type.Integer(), column: Type.Integer(), message: Type.String() });
const Plugin = Type.Object({
  pluginName: Type.String({ description: 'The id the guest gave definePlugin' }),
  pluginId: Type.String({ description: 'The kernel plugin id, vfs-<pluginName>' }),
  projectId: Type.String(),
  version: Type.String(),
  routes: Type.Array(Type.Object({ method: Type.String(), path: Type.String({ description: `Mounted at ${GUEST_ROUTE_PREFIX}/<pluginName><path>` }) })),
  actions: Type.Array(Type.String(), { description: 'Names added to the agent\'s actions' }),
  loadedAt: Type.Number({ description: 'Unix ms' }),
  state: Type.String({ description: 'active, failed (killed or could not load; see error), or a kernel lifecycle state while it changes' }),
  error: Type.Optional(Type.String()),
});
const PluginReply = Type.Object({ plugin: Plugin });
const FAILURES = '503 SERVICE_UNAVAILABLE without the sandbox; 503 PLUGIN_TIMEOUT when loading (evaluation and the guest\'s setup) runs past the setup deadline, 500 PLUGIN_MEMORY_LIMIT past the memory limit: the isolate is killed, the guest is listed as failed and the kill is audited';

export function registerVfsPluginRoutes(ctx: PluginContext<any>, plugins: VfsPlugins): void {
  ctx.route({
    method: 'POST', path: `${BASE}/projects/:id/compile-plugin`, tags: TAGS,
    summary: 'Bundle a project\'s TypeScript/JavaScript into one module and write it into the project',
    description: 'esbuild over the project\'s files only: relative imports of .ts/.js/.mjs/.json files and `@svc/sdk` (alias `svc`); any other import is an error naming it. '
      + `outFile defaults to ${DEFAULT_OUT_FILE}, format to esm, target to ${DEFAULT_TARGET}. 422 COMPILE_FAILED with details [{file, line, column, message}] (a missing entry file is one of them); `
      + '404 PROJECT_NOT_FOUND; 400 INVALID_PATH for an invalid outFile; 413 QUOTA_EXCEEDED when the bundle does not fit; 503 without the sandbox.',
    schema: {
      params: ProjectParams,
      body: Type.Object({
        entry: VfsPath('Entry file, e.g. src/index.ts'),
        outFile: Type.String({ minLength: 1, maxLength: 512, default: DEFAULT_OUT_FILE }),
        format: Type.Union([Type.Literal('esm'), Type.Literal('cjs'), Type.Literal('iife')], { default: 'esm' }),
        target: Type.String({ pattern: '^(es20(1[5-9]|2[0-4])|esnext)$', default: DEFAULT_TARGET, description: 'es2015 … es2024 or esnext' }),
      }),
      response: {
        200: Type.Object({
          compiled: Type.Object({
            entry: Type.String(), outFile: Type.String(), format: Type.String(), target: Type.String(), bytes: Type.Integer(),
            warnings: Type.Array(Message), durationMs: Type.Number(),
          }),
        }),
      },
    },
    handler: async ({ params, body }) => ({ compiled: await plugins.compile(params.id, body) }),
  });

  ctx.route({
    method: 'POST', path: `${BASE}/projects/:id/load-plugin`, tags: TAGS,
    summary: 'Load a compiled plugin from the project into its own isolate and serve it as a kernel plugin',
    description: `compileFirst (default false) compiles entry to ${DEFAULT_OUT_FILE} first (format esm); otherwise entry must be a module compile-plugin wrote. `
      + `The guest becomes kernel plugin vfs-<id>; its routes are mounted under ${GUEST_ROUTE_PREFIX}/<id> (never at a path of the server's own), need the API token, `
      + 'are validated by the kernel with the guest\'s schemas and listed in /api/openapi.json; its actions join the agent\'s. 201 for a new plugin; 200 when the same id '
      + 'from the same project is loaded again (the old version is replaced; other routes keep serving; if the new code fails to load, the old version keeps serving). '
      + `409 CONFLICT when that id is loaded from another project; 409 TOO_MANY_PLUGINS past the limit; 422 COMPILE_FAILED; 422 INVALID_PLUGIN (no definePlugin, invalid id, path, schema or action name, setup threw, an action name is taken); ${FAILURES}. `
      + 'A loaded plugin is loaded again when the server restarts, with the code loaded now (not the project files of that time); unloading or being killed ends that. Guest code may only run during its calls: an isolate that keeps running outside them is killed.',
    schema: {
      params: ProjectParams,
      body: Type.Object({ entry: VfsPath('Compiled module (or source with compileFirst)'), compileFirst: Type.Boolean({ default: false }) }),
      response: { 200: PluginReply, 201: PluginReply },
    },
    async handler({ params, body }) {
      const { plugin, created } = await plugins.load(params.id, body);
      return reply(created ? 201 : 200, { plugin });
    },
  });

  ctx.route({
    method: 'GET', path: `${BASE}/plugins`, tags: TAGS,
    summary: 'Loaded VFS plugins, and those that failed or were killed (with error), by name',
    description: 'A guest whose isolate is killed at run time (a call past its deadline, the memory limit, work outside its calls) is unloaded and listed here as failed until it is loaded again or deleted.',
    schema: { response: { 200: Type.Object({ plugins: Type.Array(Plugin) }) } },
    handler: () => ({ plugins: plugins.list() }),
  });

  ctx.route({
    method: 'DELETE', path: `${BASE}/projects/:id/plugins/:pluginName`, tags: TAGS,
    summary: 'Unload a VFS plugin (its routes and actions go with it), or forget a failed one',
    description: '404 NOT_FOUND when no plugin of that name was loaded from this project.',
    schema: {
      params: Type.Object({ id: ProjectParams.properties.id, pluginName: Type.String({ minLength: 1, maxLength: 64 }) }),
      response: { 200: Type.Object({ ok: Type.Literal(true) }) },
    },
    async handler({ params }) {
      await plugins.unload(params.id, params.pluginName);
      return { ok: true as const };
    },
  });
}
