// Shared by the vfs-plugins tests: a kernel with the real sandbox, vfs and vfs-plugins plugins (plus a
// tiny agent action registry and the runtime plugin for OpenAPI), and HTTP helpers for projects.
import runtime from '../../plugins/runtime/index.ts';
import vfs from '../../plugins/vfs/index.ts';
import vfsPlugins from '../../plugins/vfs-plugins/index.ts';
import sandbox from '../../sandbox/index.ts';
import { agentActions, createRegistry, definePlugin, type Action, type PluginDef, type Registry } from '../../sdk/index.ts';
import { createTestKernel, type InjectRequest, type InjectResponse, type TestKernel } from '../../sdk/testing.ts';
import type { KernelOptions } from '../../kernel/index.ts';

/** The agent's action registry, without the agent. */
export function actionRegistry(): { plugin: PluginDef<any>; actions: Registry<Action> } {
  const actions = createRegistry<Action>('action');
  return { actions, plugin: definePlugin({ id: 'test-actions', version: '1.0.0', provides: [agentActions], setup: (ctx) => ctx.provide(agentActions, actions) }) };
}

/**
 * A test kernel serving VFS plugins; `extra` plugins join the default set (sandbox left out with
 * `withoutSandbox`). With `auth.token`, every request carries it unless it sets its own authorization.
 */
export async function vfsKernel(options: KernelOptions & { extra?: PluginDef<any>[]; withoutSandbox?: boolean } = {}): Promise<TestKernel & { actions: Registry<Action> }> {
  const { plugin, actions } = actionRegistry();
  const { extra = [], withoutSandbox, ...rest } = options;
  const kernel = await createTestKernel({ ...rest, plugins: [...(withoutSandbox ? [] : [sandbox]), vfs, plugin, vfsPlugins, runtime, ...extra] });
  const token = options.auth?.token;
  const inject = kernel.inject;
  return Object.assign(kernel, {
    actions,
    inject: (request: InjectRequest) => inject({ ...request, headers: { ...(token && { authorization: `Bearer ${token}` }), ...request.headers } }),
  });
}

/** Creates (or opens) a project and writes files into it. */
export async function writeProject(t: TestKernel, projectId: string, files: Record<string, string>): Promise<void> {
  const created = await t.inject({ method: 'POST', url: '/api/workbench/vfs/projects', body: { projectId } });
  if (created.status >= 300) throw new Error(`Creating ${projectId}: ${created.text}`);
  for (const [path, content] of Object.entries(files)) {
    const put = await t.inject({ method: 'PUT', url: `/api/workbench/vfs/projects/${projectId}/file`, body: { path, content, encoding: 'utf-8' } });
    if (put.status >= 300) throw new Error(`Writing ${path}: ${put.text}`);
  }
}

export const compilePlugin = (t: TestKernel, projectId: string, body: Record<string, unknown>): Promise<InjectResponse> =>
  t.inject({ method: 'POST', url: `/api/workbench/vfs/projects/${projectId}/compile-plugin`, body });

export const loadPlugin = (t: TestKernel, projectId: string, entry = 'src/index.ts', compileFirst = true): Promise<InjectResponse> =>
  t.inject({ method: 'POST', url: `/api/workbench/vfs/projects/${projectId}/load-plugin`, body: { entry, compileFirst } });

export const unloadPlugin = (t: TestKernel, projectId: string, name: string): Promise<InjectResponse> =>
  t.inject({ method: 'DELETE', url: `/api/workbench/vfs/projects/${projectId}/plugins/${name}` });

export const listPlugins = async (t: TestKernel) => (await t.inject({ url: '/api/workbench/vfs/plugins' })).body.plugins as Record<string, unknown>[];

/** A guest plugin's source: `setup` is the body of its setup(ctx). */
export function pluginSource(id: string, version: string, setup: string, capabilities: string[] = []): string {
  return `import { definePlugin, Type, reply, errors } from '@svc/sdk';
export default definePlugin({ id: '${id}', version: '${version}', capabilities: ${JSON.stringify(capabilities)}, async setup(ctx) {
${setup}
} });`;
}

/** Polls until `probe` holds (failing after 10 s). */
export async function eventually(probe: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
