import {
  errors, type AuditInput, type CompileRequest, type CompileResult, type LoadModuleRequest, type RunCodeRequest, type RunResult,
  type SandboxModule, type SandboxService, type ShellRequest,
} from '../sdk/index.ts';
import { createGate } from './gate.ts';
import { runShellCommand, type ShellRunnerSettings } from './shell-runner.ts';

export interface SandboxParts {
  runCode(request: RunCodeRequest): Promise<RunResult>;
  compile(request: CompileRequest): Promise<CompileResult>;
  loadModule(request: LoadModuleRequest): Promise<SandboxModule>;
  shell: ShellRunnerSettings & {
    enabled: boolean;
    /** Refuse commands when bubblewrap is not usable. */
    requireIsolation: boolean;
    maxConcurrent: number;
  };
  audit(entry: AuditInput): void;
}

/** `core.sandbox`: the code runner, the VFS compiler and module host, and the shell choke point behind the shell permission and the audit log. */
export function createSandboxService(parts: SandboxParts): SandboxService {
  const { shell, audit } = parts;
  let shellEnabled = shell.enabled;
  const gate = createGate(shell.maxConcurrent, 'shell commands');

  return {
    runCode: parts.runCode,
    compile: parts.compile,
    loadModule: parts.loadModule,
    async runShell(request: ShellRequest) {
      const metadata = {
        origin: request.origin, command: request.command.slice(0, 500), params: Object.keys(request.params ?? {}),
        sandboxed: shell.isolated, network: request.network ?? false,
      };
      const refuse = (why: string) => {
        audit({ type: 'privileged_capability_invocation', severity: 'warn', summary: `Shell command refused (${why}): ${request.origin}`, metadata });
        return errors.forbidden(`Shell access refused: ${why}`, 'SHELL_DISABLED');
      };
      if (!shellEnabled) throw refuse('the shell permission is disabled');
      if (shell.requireIsolation && !shell.isolated) throw refuse('bubblewrap is required but not usable here');
      const leave = gate.enter();
      try {
        audit({ type: 'privileged_capability_invocation', severity: 'info', summary: `Shell command invoked: ${request.origin}`, metadata });
        return await runShellCommand(shell, request);
      } finally {
        leave();
      }
    },
    shell: {
      enabled: () => shellEnabled,
      setEnabled(enabled, reason = 'unspecified') {
        if (enabled === shellEnabled) return;
        shellEnabled = enabled;
        audit({ type: 'sandbox_mode_transition', severity: 'warn', summary: `Shell permission ${enabled ? 'enabled' : 'disabled'}`, metadata: { enabled, reason } });
      },
      isolated: shell.isolated,
    },
  };
}
