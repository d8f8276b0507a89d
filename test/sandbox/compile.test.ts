// core.sandbox compile: esbuild over a project's virtual files only. Imports resolve inside the project
// (and to the guest SDK); anything else is an error naming the import, and no message shows a host path.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sandbox from '../../sandbox/index.ts';
import { coreSandbox, type CompileResult, type SandboxService } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import { loadGuest, reader, request, type Files } from './fixtures/guest.ts';

let kernel: TestKernel;
let box: SandboxService;

test.before(async () => {
  kernel = await createTestKernel({ plugins: [sandbox] });
  box = kernel.kernel.resolve(coreSandbox)!;
});
test.after(() => kernel.close());

const HOST_PATH = new RegExp([process.cwd(), '/work/', 'node_modules', '/tmp/'].map((p) => p.replace(/[/.]/g, '\\$&')).join('|'));
const compile = (files: Files, entry = 'index.ts', extra: { format?: 'esm' | 'cjs' | 'iife'; target?: string } = {}) =>
  box.compile({ entry, read: reader(files), ...extra });

function assertNoHostPaths(result: CompileResult): void {
  for (const message of [...result.errors, ...result.warnings]) {
    assert.not.match(`${message.file} ${message.message}`, HOST_PATH, `host path in: ${message.message}`);
  }
}

const plugin = (body: string, head = '') => `import { definePlugin } from '@svc/sdk';
${head}
export default definePlugin({ id: 'compiled', version: '1.0.0', setup(ctx) { ctx.route({ method: 'GET', path: '/', handler: () => (${body}) }); } });`;

test('relative imports between project files: directories, .js naming .ts, index files, .mjs and .json', async () => {
  const files: Files = {
    'index.ts': plugin('{ sum: add(2, 3), name: config.name, label: label(), shout: shout("hi") }',
      `import { add } from './lib/math.js';\nimport config from './data/config.json';\nimport { label } from './lib';\nimport { shout } from './lib/text.mjs';`),
    'lib/math.ts': 'export const add = (a: number, b: number): number => a + b;',
    'lib/index.ts': "import { add } from '../lib/math';\nexport const label = () => `label-${add(1, 1)}`;",
    'lib/text.mjs': 'export const shout = (s) => s.toUpperCase() + "!";',
    'data/config.json': '{ "name": "from json" }',
  };
  const result = await compile(files);
  assert.ok(result.ok, JSON.stringify(result.errors));
  assert.equal(result.errors, []);
  assert.ok(result.durationMs > 0);
  const module = await box.loadModule({ code: result.code });
  try {
    assert.equal(await module.call('route:0', request()), { status: 200, body: { sum: 5, name: 'from json', label: 'label-2', shout: 'HI!' } });
  } finally {
    module.dispose();
  }
});

test('esm, cjs and iife bundles all load; the target lowers newer syntax', async () => {
  const files = { 'index.ts': plugin('{ value: (globalThis as { missing?: number }).missing ?? 7 }') };
  for (const format of ['esm', 'cjs', 'iife'] as const) {
    const result = await compile(files, 'index.ts', { format });
    assert.ok(result.ok, format);
    const module = await box.loadModule({ code: result.code });
    assert.equal(await module.call('route:0', request()), { status: 200, body: { value: 7 } }, format);
    module.dispose();
  }
  assert.match((await compile(files)).code, '??');
  assert.not.match((await compile(files, 'index.ts', { target: 'es2019' })).code, '??');
});

test('a syntax error names the project file, line and column', async () => {
  const result = await compile({ 'index.ts': plugin('helper()', "import { helper } from './src/helper';"), 'src/helper.ts': 'export function helper() {\n  return 1;\n  const x = ;\n}' });
  assert.is(result.ok, false);
  assert.is(result.code, '');
  assert.equal(result.errors.map(({ file, line, column }) => ({ file, line, column })), [{ file: 'src/helper.ts', line: 3, column: 12 }]);
  assert.match(result.errors[0]!.message, /Unexpected/);
  assertNoHostPaths(result);
});

test('packages, node builtins, absolute paths, URLs and paths out of the project are errors naming the import', async () => {
  for (const specifier of ['fs', 'node:child_process', 'typebox', 'lodash/merge', '/etc/passwd', 'file:///etc/passwd', 'https://example.com/x.js']) {
    const result = await compile({ 'index.ts': plugin('x', `import x from '${specifier}';`) });
    assert.is(result.ok, false, specifier);
    assert.is(result.errors.length, 1, specifier);
    assert.equal([result.errors[0]!.file, result.errors[0]!.line], ['index.ts', 2], specifier);
    assert.ok(result.errors[0]!.message.includes(`Import "${specifier}" is not allowed`), result.errors[0]!.message);
    assertNoHostPaths(result);
  }
  for (const specifier of ['../outside', './a/../../outside', '../../../../../../etc/passwd']) {
    const result = await compile({ 'index.ts': plugin('x', `import x from '${specifier}';`) });
    assert.equal(result.errors.map((e) => e.message), [`Import "${specifier}" leaves the project`]);
    assertNoHostPaths(result);
  }
  const dynamic = await compile({ 'index.ts': plugin('require("os")') });
  assert.is(dynamic.ok, false, 'require() of a package is refused too');
  assert.match(dynamic.errors[0]!.message, 'Import "os" is not allowed');
});

test('a missing file, an unsupported file type and an unknown SDK export are errors', async () => {
  const missing = await compile({ 'index.ts': plugin('x', "import x from './nope';") });
  assert.equal(missing.errors.map((e) => e.message), ['Cannot find "./nope" from index.ts']);
  const entry = await compile({}, 'src/main.ts');
  assert.equal(entry.errors.map((e) => e.message), ['The entry file src/main.ts does not exist']);
  const css = await compile({ 'index.ts': plugin('x', "import x from './style.css';"), 'style.css': 'a {}' });
  assert.equal(css.errors.map((e) => e.message), ['Cannot import style.css: only .ts, .js, .mjs and .json files can be imported']);
  const unknownExport = await compile({ 'index.ts': plugin('x', "import { readFile as x } from '@svc/sdk';") });
  assert.is(unknownExport.ok, false);
  assert.match(unknownExport.errors[0]!.message, /No matching export .*readFile/);
  assertNoHostPaths(unknownExport);
});

test('the SDK is also importable as "svc"; warnings carry their place', async () => {
  const result = await compile({ 'index.ts': `import { definePlugin } from 'svc';\nconst twice = { a: 1, a: 2 };\nexport default definePlugin({ id: 'alias', version: '1.0.0', setup() { void twice; } });` });
  assert.ok(result.ok, JSON.stringify(result.errors));
  assert.equal(result.warnings.map(({ file, line }) => ({ file, line })), [{ file: 'index.ts', line: 2 }]);
  assert.match(result.warnings[0]!.message, /Duplicate key "a"/);
});

test('a failing read becomes an error at the import, without the host details it carried', async () => {
  const result = await box.compile({
    entry: 'index.ts',
    read: async (path) => {
      if (path === 'index.ts') return plugin('x', "import x from './secret';");
      throw new Error(`EACCES: permission denied, open '${process.cwd()}/state/secret.ts'`);
    },
  });
  assert.is(result.ok, false);
  assert.equal([result.errors[0]!.file, result.errors[0]!.line], ['index.ts', 2]);
  assert.match(result.errors[0]!.message, /^Cannot read secret\.ts: EACCES/);
  assertNoHostPaths(result);
});

test('compiling uses nothing but read(): a project named like host files sees only its own', async () => {
  const seen: string[] = [];
  const result = await box.compile({
    entry: 'package.json',
    read: async (path) => { seen.push(path); return path === 'package.json' ? '{"name": "virtual"}' : undefined; },
    format: 'cjs',
  });
  assert.ok(result.ok);
  assert.match(result.code, '"virtual"');
  assert.equal(seen, ['package.json']);
});

test.run();
