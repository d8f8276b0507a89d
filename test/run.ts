// Runs the typecheck and every *.test.ts file (each in its own process, two at a time) and ends with
// one line "N passed, N failed". Fails when anything fails or when no test ran.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filter = process.argv[2] ? new RegExp(process.argv[2]) : undefined;
const concurrency = Number(process.env.TEST_CONCURRENCY || 2);

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const count = (output: string, label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(output)?.[1] ?? 0);
let passed = 0;
let failed = 0;

if (!filter) {
  const typecheck = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '--pretty', 'false', '-p', root]);
  if (typecheck.code === 0) { passed++; console.log('✓ typecheck'); } else { failed++; console.log(`✘ typecheck\n${typecheck.output}`); }
}

const files = findTests(join(root, 'test')).filter((f) => !filter || filter.test(f)).sort();
const queue = [...files];
await Promise.all(Array.from({ length: concurrency }, async () => {
  for (let file = queue.shift(); file; file = queue.shift()) {
    const started = Date.now();
    const { code, output } = await run(process.execPath, ['--no-node-snapshot', '--import', 'tsx', file]);
    const total = count(output, 'Total');
    const ok = count(output, 'Passed');
    const broken = total - ok - count(output, 'Skipped') || (code !== 0 ? 1 : 0);
    passed += ok;
    failed += broken;
    const mark = broken || code !== 0 ? '✘' : '✓';
    console.log(`${mark} ${relative(root, file)}: ${ok}/${total} in ${Date.now() - started} ms`);
    if (broken || code !== 0) console.log(output.split('\n').map((l) => `    ${l}`).join('\n'));
  }
}));

if (passed + failed === 0 || files.length === 0) failed++, console.log('no tests ran');
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
