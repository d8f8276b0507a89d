import { createToken } from './tokens.ts';

/** A trigger as the workbench overview lists it. */
export interface TriggerSummary { id: string; displayName: string; enabled: boolean; schedule: string }

/** Provided by the triggers plugin: what other plugins (the workbench overview) may read of it. */
export interface TriggerDirectory {
  summaries(): Promise<TriggerSummary[]>;
}
export const triggerDirectory = createToken<TriggerDirectory>('triggers.directory');

/** The life-ops block of the workbench overview, from whatever plugin runs life operations. */
export interface LifeOpsOverview {
  occurrences: unknown[];
  goals: unknown[];
  reminders: unknown[];
  summary: {
    activeOccurrenceCount: number; overdueOccurrenceCount: number; snoozedOccurrenceCount: number;
    activeReminderCount: number; activeGoalCount: number;
  };
}
/** A life-ops service (occurrences, goals, reminders); the workbench reports `lifeopsAvailable` when one is loaded. */
export interface LifeOpsService {
  overview(): Promise<LifeOpsOverview>;
}
export const lifeOps = createToken<LifeOpsService>('lifeops.service');

/** Files handed to the cloud: the spec's promotion source. */
export interface PromotionSource {
  sourceKind: string; projectId: string; snapshotId: string;
  files: { path: string; contents: string; encoding: 'utf-8' | 'base64' }[];
}
export interface Promotion {
  promotionId: string; status: string; source: { sourceKind: string; projectId: string; snapshotId: string };
  workspacePath: string; createdAt: string;
}
/**
 * A connected cloud account's coding-container service. No first-party plugin provides it yet: without
 * one, promotion and container routes fail closed with 503 CLOUD_NOT_CONNECTED.
 */
export interface CloudCodingService {
  promote(request: { source: PromotionSource; name?: string; description?: string; preferredAgent?: string; workspacePath?: string; branchName?: string }): Promise<Promotion>;
}
export const cloudCoding = createToken<CloudCodingService>('cloud.coding');

/** A file of a VFS project as clients see it: virtual metadata only, never a host path. */
export interface VfsFileInfo { path: string; type: 'file' | 'directory'; size: number; mtimeMs: number }

/**
 * VFS projects (provided by the `vfs` plugin): isolated virtual file trees with quotas and snapshots.
 * Paths are virtual (`src/index.ts`); invalid or traversing paths throw 400 INVALID_PATH, a missing
 * project 404 PROJECT_NOT_FOUND, a missing file 404 FILE_NOT_FOUND, a quota breach 413 QUOTA_EXCEEDED.
 * Also: an invalid project id throws 400 INVALID_REQUEST; a write that would make a path both a file and
 * a directory throws 409 PATH_CONFLICT. Operations on one project run one at a time, in call order.
 */
export interface VfsProjects {
  /** Throws 404 PROJECT_NOT_FOUND unless the project exists. */
  assertExists(projectId: string): Promise<void>;
  /** Every file of the project (directories implied by file paths are listed too). */
  list(projectId: string): Promise<VfsFileInfo[]>;
  read(projectId: string, path: string): Promise<Uint8Array>;
  /** Creates or replaces a file (durable when resolved). */
  write(projectId: string, path: string, data: Uint8Array): Promise<VfsFileInfo>;
}
export const vfsProjects = createToken<VfsProjects>('vfs.projects');
