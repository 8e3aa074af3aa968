/**
 * Backups (docs/operations.md, "Backup and restore"): POST /v1/admin/snapshot starts a consistent
 * point-in-time snapshot of this node's data into a directory on the node's own machine, written
 * by the node while it keeps serving; GET /v1/admin/snapshot reports the last one. Admin routes:
 * the admin token when tokens are set.
 */
import { isAbsolute } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SnapshotService } from '../node/snapshots.js';
import { parseInput } from './schemas.js';

/** Longest directory path accepted (Linux's PATH_MAX). */
export const SNAPSHOT_DIR_CHARS_MAX = 4096;

export const snapshotBodySchema = z
  .object({
    dir: z
      .string()
      .min(1)
      .max(SNAPSHOT_DIR_CHARS_MAX)
      .refine((d) => isAbsolute(d) && !d.includes('\0'), {
        message: 'must be an absolute path on the node’s machine',
      })
      .meta({
        description:
          'An absolute directory on the node’s own machine, absent or empty: the node writes the snapshot there (manifest.json and db/).',
      }),
  })
  .strict();

export interface SnapshotRouteDeps {
  readonly snapshots: Pick<SnapshotService, 'start' | 'last'>;
}

export function registerSnapshotRoutes(app: FastifyInstance, deps: SnapshotRouteDeps): void {
  app.post('/v1/admin/snapshot', async (req, reply) => {
    const { dir } = parseInput(snapshotBodySchema, req.body, 'body');
    return reply.code(202).send(await deps.snapshots.start(dir));
  });
  app.get('/v1/admin/snapshot', async () => deps.snapshots.last ?? { state: 'none' });
}
