import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { coreSandbox, definePlugin, Type } from '../sdk/index.ts';
import { bwrapWorks } from './bwrap.ts';
import { createCodeRunner } from './code-runner.ts';
import { compileProject } from './compile.ts';
import { createGate } from './gate.ts';
import { buildGuestSdkScript } from './guest-sdk-script.ts';
import { createModuleHost } from './module-host.ts';
import { hasNoSnapshotFlag, MISSING_FLAG_MESSAGE } from './node-flags.ts';
import { createScratchRoot } from './scratch.ts';
import { createSandboxService } from './service.ts';
import { SHELL_DEFAULTS } from './shell-runner.ts';

const NOBODY = 65534;

/** Trusted infrastructure: provides `core.sandbox` (isolated-vm code runner and the shell choke point). */
export default definePlugin({
  id: 'sandbox',
  version: '0.1.0',
  description: 'Runs untrusted code and VFS plugins in isolated-vm isolates, compiles VFS projects with esbuild, runs shell commands in bubblewrap',
  provides: [coreSandbox],
  config: Type.Object({
    shellEnabled: Type.Boolean({ default: true, env: 'SVC_SHELL_ENABLED', description: 'The shell permission (0 disables every shell command)' }),
    shellSandbox: Type.Union([Type.Literal('auto'), Type.Literal('required'), Type.Literal('off')], {
      default: 'auto', env: 'SVC_SHELL_SANDBOX',
      description: 'auto: bubblewrap when it works here; required: refuse commands without it; off: never use it',
    }),
    shellUid: Type.Integer({ minimum: 1, default: NOBODY, description: 'uid/gid commands run as when the server runs as root' }),
    shellTimeoutMs: Type.Integer({ minimum: 100, default: SHELL_DEFAULTS.timeoutMs, env: 'SVC_SHELL_TIMEOUT_MS' }),
    maxConcurrentShell: Type.Integer({ minimum: 1, default: 4 }),
    isolatePoolSize: Type.Integer({ minimum: 0, maximum: 32, default: 2, description: 'Isolates prepared ahead of time' }),
    maxConcurrentRuns: Type.Integer({ minimum: 1, default: 8 }),
    maxConcurrentCompiles: Type.Integer({ minimum: 1, default: 4 }),
    maxConcurrentLoads: Type.Integer({ minimum: 1, default: 4, description: 'VFS plugin modules being loaded at once' }),
  }),
  async setup(ctx) {
    if (!hasNoSnapshotFlag()) throw new Error(MISSING_FLAG_MESSAGE);
    // Loaded only once the flag is known to be there.
    const { default: ivm } = await import('isolated-vm');
    const config = ctx.config.get();
    const runner = createCodeRunner(ivm, {
      poolSize: config.isolatePoolSize, maxConcurrent: config.maxConcurrentRuns,
      onCatastrophicError: (message) => ctx.log.error(`Isolate failure: ${message}`, { tags: ['sandbox'] }),
    });
    ctx.track(() => runner.close());
    let guestSdk: Promise<string> | undefined;
    const modules = createModuleHost(ivm, {
      // Built on first use, not at startup: most servers never load a VFS plugin.
      guestSdk: () => (guestSdk ??= buildGuestSdkScript().catch((error) => { guestSdk = undefined; throw error; })),
      maxConcurrentLoads: config.maxConcurrentLoads,
      onCatastrophicError: (message) => ctx.log.error(`Module isolate failure: ${message}`, { tags: ['sandbox'] }),
    });
    ctx.track(() => modules.close());
    const compiles = createGate(config.maxConcurrentCompiles, 'compiles');

    const scratchRoot = await createScratchRoot();
    ctx.track(() => rm(scratchRoot, { recursive: true, force: true }));
    const user = process.getuid?.() === 0 ? { uid: config.shellUid, gid: config.shellUid } : undefined;
    // Plugin dirs live at <state>/plugins/<id>: hide the whole state dir (keys, databases) and the home dir.
    // bwrap cannot create a mount point for a missing directory on the read-only root.
    const hidden = [...new Set([resolve(ctx.storage.dir, '..', '..'), homedir()])].filter((dir) => dir !== '/' && existsSync(dir));
    const isolated = config.shellSandbox !== 'off' && await bwrapWorks({ scratch: scratchRoot, hidden, network: false }, user);
    if (config.shellSandbox !== 'off' && !isolated) {
      ctx.log.warn('bubblewrap is not usable here: shell commands run without the OS sandbox (install bubblewrap)', { tags: ['sandbox'] });
    }
    ctx.audit({
      type: 'sandbox_lifecycle', severity: isolated ? 'info' : 'warn',
      summary: `Sandbox ready: shell ${isolated ? 'inside bubblewrap' : 'without OS sandbox'}, shell permission ${config.shellEnabled ? 'on' : 'off'}`,
      metadata: { isolated, shellEnabled: config.shellEnabled, runAsUid: user?.uid ?? process.getuid?.() },
    });

    ctx.provide(coreSandbox, createSandboxService({
      runCode: runner.runCode,
      async compile(request) {
        const leave = compiles.enter();
        try { return await compileProject(request); } finally { leave(); }
      },
      loadModule: modules.loadModule,
      shell: {
        enabled: config.shellEnabled, requireIsolation: config.shellSandbox === 'required', maxConcurrent: config.maxConcurrentShell,
        scratchRoot, hidden, isolated, user, defaultTimeoutMs: config.shellTimeoutMs,
      },
      audit: (entry) => ctx.audit(entry),
    }));
  },
});
