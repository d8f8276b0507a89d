// Walks through a VFS plugin's life against a running server: create a project, write a TypeScript
// plugin into it, compile it, load it, call its route (and see a validation 400), unload it.
//
//   npm start                                   # in another terminal
//   node --import tsx examples/vfs-plugin/run.ts [--url http://127.0.0.1:31337] [--token <SVC_API_TOKEN>]
import { parseArgs } from 'node:util';
import { PLUGIN_FILES, PLUGIN_ID } from './plugin-files.ts';

const { values } = parseArgs({ options: { url: { type: 'string' }, token: { type: 'string' }, project: { type: 'string' } } });
const base = (values.url ?? process.env.SVC_URL ?? 'http://127.0.0.1:31337').replace(/\/+$/, '');
const token = values.token ?? process.env.SVC_API_TOKEN;
const project = values.project ?? 'vfs-plugin-example';
const projectPath = `/api/workbench/vfs/projects/${project}`;

/** One JSON request; fails the run unless the status is one of `expected`. */
async function api(method: string, path: string, body: unknown, expected: number[]): Promise<any> {
  const response = await fetch(base + path, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...(token && { authorization: `Bearer ${token}` }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : undefined;
  console.log(`${method} ${path} → ${response.status}`);
  if (!expected.includes(response.status)) throw new Error(`Expected ${expected.join(' or ')}, got ${response.status}: ${text}`);
  return parsed;
}

const show = (label: string, value: unknown) => console.log(`  ${label}: ${JSON.stringify(value)}`);

await api('POST', '/api/workbench/vfs/projects', { projectId: project }, [200, 201]);
for (const [path, content] of Object.entries(PLUGIN_FILES)) await api('PUT', `${projectPath}/file`, { path, content, encoding: 'utf-8' }, [200, 201]);

const { compiled } = await api('POST', `${projectPath}/compile-plugin`, { entry: 'src/index.ts', outFile: 'dist/plugin.js' }, [200]);
show('compiled', compiled);

const { plugin } = await api('POST', `${projectPath}/load-plugin`, { entry: compiled.outFile, compileFirst: false }, [200, 201]);
show('loaded', plugin);

const route = plugin.routes.find((r: { path: string }) => r.path.endsWith('/convert')).path as string;
show('converted', await api('POST', route, { celsius: 21.5 }, [200]));
show('validation', await api('POST', route, { celsius: 'warm' }, [400]));

const { plugins } = await api('GET', '/api/workbench/vfs/plugins', undefined, [200]);
show('listed', plugins.map((p: { pluginName: string; state: string }) => `${p.pluginName} (${p.state})`));

await api('DELETE', `${projectPath}/plugins/${PLUGIN_ID}`, undefined, [200]);
await api('POST', route, { celsius: 0 }, [404]);
console.log('done: the plugin was compiled, loaded, called and unloaded');
