/** The operator routes (admin-ops-routes.ts) in the OpenAPI document (openapi.ts). */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { drainBodySchema, repairBodySchema } from './admin-ops-routes.js';
import { json } from './openapi-answers.js';

const outcome = z.enum([
  'in-sync',
  'repaired',
  'incomplete',
  'failed',
  'deferred',
  'no-peer',
  'solo',
  'idle',
]);

const repairAnswer = z
  .object({
    partitions: z.int().meta({ description: 'Partitions exchanged with each of their other replicas.' }),
    exchanges: z.record(z.string(), z.int()).meta({ description: 'Exchanges run, by outcome.' }),
    keysPulled: z.int().meta({ description: "Keys changed on this node by merging a replica's copy." }),
    keysPushed: z.int().meta({ description: 'Keys sent to replicas whose copy was older.' }),
    unfinished: z
      .array(z.object({ partition: z.int(), peer: z.string(), outcome }))
      .meta({ description: 'Pairs not in sync: a replica unreachable, or the deadline passed.' }),
    elapsedMs: z.int(),
  })
  .meta({ id: 'RepairReport' });

export const drainAnswer = z
  .object({
    phase: z.enum(['serving', 'draining', 'drained', 'timed-out']),
    hints: z.object({ count: z.int(), bytes: z.int() }).meta({ description: 'Hints held now.' }),
    hintsAtStart: z.int().optional(),
    redirected: z
      .int()
      .meta({ description: 'Hints of owners that were down, given to another node to keep.' }),
    startedMs: z.number().optional(),
    timeoutMs: z.int().optional(),
  })
  .meta({ id: 'Drain' });

export function adminOpsRoutes(errors: RouteConfig['responses']): RouteConfig[] {
  return [
    {
      method: 'post',
      path: '/v1/admin/repair',
      summary: 'Run anti-entropy now: every partition this node replicates, or one, with each other replica',
      description:
        'Answers once done or at `timeoutMs` (default 60000), with what was repaired and what was left. A partition that does not exist, or that this node does not replicate, is a 400.',
      request: { body: { content: { 'application/json': { schema: repairBodySchema } }, required: false } },
      responses: { 200: json(repairAnswer, 'What the repair did.'), ...errors },
    },
    {
      method: 'post',
      path: '/v1/admin/drain',
      summary: 'Drain this node: refuse clients (503 NODE_DRAINING), hand its hints over, then exit',
      description:
        'The node exits (code 0) once it holds no hint; past `timeoutMs` (default 60000) it keeps refusing clients without exiting. Follow it with GET /v1/admin/drain.',
      request: { body: { content: { 'application/json': { schema: drainBodySchema } }, required: false } },
      responses: { 202: json(drainAnswer, 'Draining.'), ...errors },
    },
    {
      method: 'get',
      path: '/v1/admin/drain',
      summary: 'How a drain goes: phase and hints left',
      responses: { 200: json(drainAnswer, 'The drain (phase `serving` when none).'), ...errors },
    },
    {
      method: 'delete',
      path: '/v1/admin/drain',
      summary: 'Cancel a drain not finished (one timed out included): serve clients again',
      responses: { 200: json(drainAnswer, 'Serving again.'), ...errors },
    },
  ];
}
