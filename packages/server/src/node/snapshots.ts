/**
 * Snapshots of this node's data, one at a time (docs/operations.md, "Backup and restore"). A
 * snapshot runs in the background, written by the node into a directory on its own machine; the
 * admin API starts one and reports the last one's progress and outcome.
 */
import { TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import type { StorageEngine } from '../storage/engine.js';
import { beginSnapshot } from '../storage/snapshot.js';
import type { SnapshotManifest } from '../storage/snapshot-manifest.js';

export interface SnapshotJob {
  readonly state: 'running' | 'done' | 'failed';
  readonly dir: string;
  readonly startedAt: string;
  /** Entries copied so far (all of them once done). */
  readonly entries: number;
  readonly manifest?: SnapshotManifest;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface SnapshotServiceDeps {
  readonly engine: StorageEngine;
  readonly nodeId: string;
  readonly clusterId: () => string;
  readonly log: Logger;
}

export class SnapshotService {
  private job: SnapshotJob | undefined;
  private busy = false;

  constructor(private readonly deps: SnapshotServiceDeps) {}

  /** The last snapshot started since the node started, if any. */
  get last(): SnapshotJob | undefined {
    return this.job;
  }

  /** Starts a snapshot into `dir` (absolute, absent or empty); refused while one runs. */
  async start(dir: string): Promise<SnapshotJob> {
    if (this.busy) {
      throw new TesseraError(
        'SNAPSHOT_IN_PROGRESS',
        `This node is taking a snapshot into ${this.job?.dir ?? 'another directory'} already; wait for it to finish (GET /v1/admin/snapshot), then start another.`,
      );
    }
    this.busy = true;
    try {
      const startedAt = new Date().toISOString();
      const { finished } = await beginSnapshot(
        {
          engine: this.deps.engine,
          nodeId: this.deps.nodeId,
          clusterId: this.deps.clusterId(),
          onProgress: (entries) => {
            if (this.job?.dir === dir) this.job = { ...this.job, entries };
          },
        },
        dir,
      );
      this.job = { state: 'running', dir, startedAt, entries: 0 };
      this.deps.log.info({ dir }, 'snapshot started');
      void finished.then(
        (manifest) => this.finish({ state: 'done', dir, startedAt, entries: countOf(manifest), manifest }),
        (err: unknown) => this.finish({ state: 'failed', dir, startedAt, entries: 0, error: errorOf(err) }),
      );
      return this.job;
    } catch (err) {
      this.busy = false;
      throw err;
    }
  }

  private finish(job: SnapshotJob): void {
    this.job = job;
    this.busy = false;
    if (job.state === 'done') this.deps.log.info({ dir: job.dir, entries: job.entries }, 'snapshot written');
    else this.deps.log.warn({ dir: job.dir, error: job.error }, 'snapshot failed; its directory was removed');
  }
}

function countOf(manifest: SnapshotManifest): number {
  return manifest.keys.data + manifest.keys.hints + manifest.keys.meta;
}

function errorOf(err: unknown): { code: string; message: string } {
  if (TesseraError.is(err)) return { code: err.code, message: err.message };
  return { code: 'STORAGE_FAILURE', message: err instanceof Error ? err.message : String(err) };
}
