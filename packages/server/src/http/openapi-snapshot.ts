/** The snapshot routes in the OpenAPI document (openapi.ts). */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { json } from './openapi-answers.js';
import { snapshotBodySchema } from './snapshot-routes.js';

const manifestBody = z
  .object({
    kind: z.literal('tessera-snapshot'),
    snapshotVersion: z.int(),
    formatVersion: z.int().meta({ description: 'The on-disk format of the data (docs/operations.md).' }),
    nodeId: z.string(),
    clusterId: z.string(),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime(),
    keys: z.object({ data: z.int(), hints: z.int(), meta: z.int() }),
    bytes: z.int(),
    checksum: z.string().meta({ description: '`sha256:` and the hex digest of every entry.' }),
  })
  .meta({ id: 'SnapshotManifest' });

const jobBody = z
  .object({
    state: z.enum(['running', 'done', 'failed', 'none']),
    dir: z.string().optional(),
    startedAt: z.iso.datetime().optional(),
    entries: z.int().optional().meta({ description: 'Entries copied so far.' }),
    manifest: manifestBody.optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  })
  .meta({ id: 'SnapshotJob' });

export function snapshotRoutes(errors: RouteConfig['responses']): RouteConfig[] {
  return [
    {
      method: 'post',
      path: '/v1/admin/snapshot',
      summary: 'Start a point-in-time snapshot of this node’s data into a directory on its machine',
      description:
        'One at a time per node (409 SNAPSHOT_IN_PROGRESS); a directory that exists and is not empty is refused (409 DIR_NOT_EMPTY). Follow it with GET /v1/admin/snapshot.',
      request: { body: { content: { 'application/json': { schema: snapshotBodySchema } }, required: true } },
      responses: { 202: json(jobBody, 'Started.'), ...errors },
    },
    {
      method: 'get',
      path: '/v1/admin/snapshot',
      summary: 'The last snapshot this node started: running, done (with its manifest) or failed',
      responses: { 200: json(jobBody, 'The last snapshot, or `{"state":"none"}`.'), ...errors },
    },
  ];
}
