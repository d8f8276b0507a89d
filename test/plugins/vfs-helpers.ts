// Shared by the VFS tests (not a test file): a kernel with the vfs plugin on a state dir of its own that
// survives restarts, a request helper that keeps every response body (to prove none shows a host path),
// and a count of the blob files on disk.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import vfs from '../../plugins/vfs/index.ts';
import type { PluginDef } from '../../sdk/index.ts';
import { createTestKernel, type InjectRequest, type InjectResponse, type TestKernel } from '../../sdk/testing.ts';

export const PROJECTS = '/api/workbench/vfs/projects';

export interface VfsKernel {
  kernel: TestKernel;
  call(request: InjectRequest): Promise<InjectResponse>;
  /** Stops the kernel and starts it again on the same state dir. */
  restart(): Promise<void>;
  /** Blob files on disk (temp files excluded). */
  blobCount(): number;
  /** Every response body seen so far, joined. */
  seen(): string;
  readonly stateDir: string;
  close(): Promise<void>;
}

export async function startVfs(options: { config?: Record<string, unknown>; plugins?: PluginDef<any>[] } = {}): Promise<VfsKernel> {
  const bodies: string[] = [];
  let kernel = await createTestKernel({ plugins: [vfs, ...(options.plugins ?? [])], config: { vfs: options.config ?? {} } });
  const blobs = join(kernel.stateDir, 'plugins', 'vfs', 'blobs');
  return {
    get kernel() { return kernel; },
    stateDir: kernel.stateDir,
    async call(request) {
      const response = await kernel.inject(request);
      bodies.push(response.text);
      return response;
    },
    async restart() {
      kernel = await kernel.restart();
    },
    blobCount: () => !existsSync(blobs) ? 0 : readdirSync(blobs, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && !entry.name.endsWith('.tmp')).length,
    seen: () => bodies.join('\n'),
    close: () => kernel.close(),
  };
}

/** Query string for a file path. */
export const q = (path: string) => `path=${encodeURIComponent(path)}`;
