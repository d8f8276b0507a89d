// The shell choke point of `core.sandbox`, on real processes: no injection through parameters, scrubbed
// environment, scratch directory, deadline with process-group kill, output cap, the shell permission,
// the audit log, and bubblewrap's jail when it is installed (`npm test` installs it where it can).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import diagnostics from '../../plugins/diagnostics/index.ts';
import sandbox from '../../sandbox/index.ts';
import { coreSandbox, type SandboxService, type ShellRequest } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import { recordingServer, type RecordingServer } from './fixtures/recording-server.ts';

let kernel: TestKernel;
let box: SandboxService;
let server: RecordingServer;
const tag = `${process.pid}-${Date.now()}`;

test.before(async () => {
  process.env.SVC_SHELL_TEST_SECRET = 'sup3r-secret';
  process.env.SVC_API_TOKEN = 'api-token-value';
  kernel = await createTestKernel({ plugins: [sandbox, diagnostics] });
  box = kernel.kernel.resolve(coreSandbox)!;
  server = await recordingServer();
});
test.after(async () => {
  await kernel.close();
  await server.close();
});

const shell = (command: string, params: Record<string, string> = {}, extra: Partial<ShellRequest> = {}) =>
  box.runShell({ command, params, origin: 'test:shell-runner', ...extra });

const HOSTILE = [
  '; touch injected',
  '$(touch injected)',
  '`touch injected`',
  'ok\ntouch injected',
  "'; touch injected; '",
  '"; touch injected; "',
  '&& touch injected || touch injected',
  '${IFS}touch${IFS}injected',
];

test('parameters are data: no injection through ;, $( ), backticks, newlines or quotes', async () => {
  for (const value of HOSTILE) {
    for (const template of ["printf '%s|' {{v}}; ls -A", 'printf "%s|" "<{{v}}>"; ls -A', "printf '%s|' '<{{v}}>'; ls -A"]) {
      const result = await shell(template, { v: value });
      const expected = template.includes('<') ? `<${value}>|` : `${value}|`;
      assert.is(result.output, expected, `${template} with ${JSON.stringify(value)}`);
      assert.ok(result.ok);
    }
  }
});

test('a placeholder used twice is one value; a missing one is empty; a NUL byte is refused', async () => {
  assert.is((await shell('printf "%s-%s-%s" {{a}} {{a}} {{missing}}', { a: 'x y' })).output, 'x y-x y-');
  try {
    await shell('echo {{a}}', { a: 'a\0b' });
    assert.unreachable('NUL accepted');
  } catch (error) {
    assert.is((error as { status?: number }).status, 400);
  }
});

test('the environment holds only PATH, HOME and LANG: no secrets, no token', async () => {
  const result = await shell('env');
  assert.not.match(result.output, 'sup3r-secret');
  assert.not.match(result.output, 'api-token-value');
  const names = result.output.trim().split('\n').map((line) => line.slice(0, line.indexOf('='))).sort();
  assert.equal(names.filter((name) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(name)), ['HOME', 'LANG', 'PATH']);
});

test('cwd and HOME are a fresh scratch dir, removed afterwards', async () => {
  const result = await shell('pwd; echo "$HOME"; echo data > file; ls');
  const [cwd, home, listing] = result.output.trim().split('\n');
  assert.is(home, cwd);
  assert.is(listing, 'file');
  assert.ok(!existsSync(cwd!), 'scratch dir removed');
  const again = await shell('ls -A');
  assert.is(again.output, '', 'the next run starts empty');
});

test('stdout and stderr are captured together; a non-zero exit fails the run', async () => {
  const result = await shell('echo out; echo err >&2; exit 3');
  assert.equal({ ok: result.ok, exitCode: result.exitCode, error: result.error }, { ok: false, exitCode: 3, error: 'Exited with code 3' });
  assert.equal(result.output.split('\n').filter(Boolean).sort(), ['err', 'out']);
});

test('the deadline kills the whole process group, background children included', async () => {
  const marker = `31.${process.pid}`;
  const result = await shell(`sleep ${marker} & sleep ${marker} & sleep ${marker}`, {}, { timeoutMs: 300 });
  assert.equal({ ok: result.ok, error: result.error }, { ok: false, error: 'Timed out after 300 ms' });
  assert.equal(processesWith(marker), [], 'no sleep survived');
});

test('output beyond the cap stops the command', async () => {
  const result = await shell('yes', {}, { maxOutputBytes: 4096 });
  assert.equal({ ok: result.ok, length: result.output.length, error: result.error }, { ok: false, length: 4096, error: 'Output exceeds 4096 bytes; the command was stopped' });
});

test('every call is audited as privileged_capability_invocation', async () => {
  await shell('true', {}, { origin: `custom-action:AUDITED_${tag}` });
  const entries = await audit('privileged_capability_invocation');
  const entry = entries.find((e) => e.metadata.origin === `custom-action:AUDITED_${tag}`);
  assert.ok(entry, 'audit entry present');
  assert.is(entry!.metadata.command, 'true');
});

test('with the shell permission off, commands are refused (403) and the refusal is audited', async () => {
  box.shell.setEnabled(false, 'test');
  try {
    await shell('echo should-not-run', {}, { origin: `refused-${tag}` });
    assert.unreachable('ran with the shell permission off');
  } catch (error) {
    assert.equal([(error as { status?: number }).status, (error as { code?: string }).code], [403, 'SHELL_DISABLED']);
  } finally {
    box.shell.setEnabled(true, 'test');
  }
  const refused = (await audit('privileged_capability_invocation')).find((e) => e.metadata.origin === `refused-${tag}`);
  assert.is(refused?.severity, 'warn');
  const transitions = (await audit('sandbox_mode_transition')).map((e) => e.summary);
  assert.ok(transitions.includes('Shell permission disabled') && transitions.includes('Shell permission enabled'));
});

test('bubblewrap jail: read-only root, private /tmp, hidden state dir, unprivileged, no network unless allowed', async () => {
  const probe = `svc-probe-${tag}`;
  const connect = `require("net").connect(${server.host.split(':')[1]}, "127.0.0.1").on("connect", () => { console.log("CONNECTED"); process.exit(0) }).on("error", (e) => console.log("NET", e.code))`;
  if (!box.shell.isolated) {
    // Without bubblewrap the runner says so on every result; the jail tests below need it installed.
    const result = await shell(`echo x > /tmp/${probe}; echo done`);
    assert.is(result.sandboxed, false);
    assert.ok(existsSync(`/tmp/${probe}`), 'unsandboxed commands share the host /tmp');
    return;
  }
  const write = await shell(`touch /var/tmp/${probe} 2>&1; touch /etc/${probe} 2>&1; echo x > /tmp/${probe} && echo tmp-ok`);
  assert.is(write.sandboxed, true);
  assert.match(write.output, /Read-only file system/);
  assert.match(write.output, 'tmp-ok');
  assert.ok(!existsSync(`/var/tmp/${probe}`) && !existsSync(`/etc/${probe}`) && !existsSync(`/tmp/${probe}`), 'nothing reached the host');

  const state = await shell('ls -A {{dir}} | wc -l', { dir: kernel.stateDir });
  assert.ok(readdirSync(kernel.stateDir).length > 0);
  assert.is(state.output.trim(), '0', 'the state dir (keys, databases) is hidden');

  if (process.getuid?.() === 0) assert.is((await shell('id -u')).output.trim(), '65534', 'root drops to nobody');

  const offline = await shell('{{node}} -e {{script}}', { node: process.execPath, script: connect });
  assert.match(offline.output, /^NET /, 'no network by default');
  const online = await shell('{{node}} -e {{script}}', { node: process.execPath, script: connect }, { network: true });
  assert.is(online.output.trim(), 'CONNECTED', 'network when the action allows it');
});

test('with the OS sandbox off, the result says the command was not sandboxed', async () => {
  const plain = await createTestKernel({ plugins: [sandbox], config: { sandbox: { shellSandbox: 'off' } } });
  try {
    const service = plain.kernel.resolve(coreSandbox)!;
    assert.is(service.shell.isolated, false);
    const result = await service.runShell({ command: 'echo plain', origin: 'test' });
    assert.equal({ ok: result.ok, output: result.output, sandboxed: result.sandboxed }, { ok: true, output: 'plain\n', sandboxed: false });
  } finally {
    await plain.close();
  }
});

test('scratch roots left by dead processes are swept at startup; those of live processes are kept', async () => {
  const dead = spawnSync('true').pid;
  const stale = mkdtempSync(join(tmpdir(), `svc-shell-${dead}-`));
  const live = mkdtempSync(join(tmpdir(), `svc-shell-${process.pid}-`));
  const again = await createTestKernel({ plugins: [sandbox] });
  try {
    assert.equal([existsSync(stale), existsSync(live)], [false, true]);
  } finally {
    await again.close();
    rmSync(live, { recursive: true, force: true });
  }
});

interface AuditEntry { type: string; severity: string; summary: string; metadata: Record<string, unknown> }
async function audit(type: string): Promise<AuditEntry[]> {
  const response = await kernel.inject({ url: `/api/security/audit?type=${type}&limit=1000` });
  return (response.body as { entries: AuditEntry[] }).entries;
}

/** Live processes whose command line contains `marker`. */
function processesWith(marker: string): string[] {
  return readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker); } catch { return false; }
  });
}

test.run();
