/**
 * Operator actions (docs/operations.md): POST /v1/admin/repair runs anti-entropy now; POST
 * /v1/admin/drain drains the node (node/drain.ts), GET follows it, DELETE cancels it. Admin token
 * like every /v1/admin route (auth.ts).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type RepairDeps, type RepairReport, repairNow, repairTargets } from '../anti-entropy/repair-now.js';
import { DRAIN_TIMEOUT_MS_DEFAULT, DRAIN_TIMEOUT_MS_MAX, type Drain } from '../node/drain.js';
import { parseInput } from './schemas.js';

/** How long one repair call may run at most (ms); the answer lists what was left. */
export const REPAIR_TIMEOUT_MS_DEFAULT = 60_000;
export const REPAIR_TIMEOUT_MS_MAX = 600_000;

export const repairBodySchema = z
  .object({
    partition: z.number().int().min(0).optional(),
    timeoutMs: z.number().int().min(100).max(REPAIR_TIMEOUT_MS_MAX).optional(),
  })
  .strict();

export const drainBodySchema = z
  .object({ timeoutMs: z.number().int().min(100).max(DRAIN_TIMEOUT_MS_MAX).optional() })
  .strict();

export interface AdminOpsRouteDeps {
  readonly repair: Omit<RepairDeps, 'sleep'>;
  readonly drain: Pick<Drain, 'start' | 'view' | 'cancel' | 'draining'>;
}

export function registerAdminOpsRoutes(app: FastifyInstance, deps: AdminOpsRouteDeps): void {
  app.post('/v1/admin/repair', async (req): Promise<RepairReport> => {
    const body = parseInput(repairBodySchema, req.body, 'body');
    const partitions = repairTargets(deps.repair, body.partition);
    const deadlineMs = deps.repair.now() + (body.timeoutMs ?? REPAIR_TIMEOUT_MS_DEFAULT);
    const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
    const report = await repairNow({ ...deps.repair, sleep }, partitions, deadlineMs);
    req.log.info({ ...report, unfinished: report.unfinished.length }, 'repair requested by an operator');
    return report;
  });

  app.post('/v1/admin/drain', async (req, reply) => {
    const body = parseInput(drainBodySchema, req.body, 'body');
    const view = deps.drain.start(body.timeoutMs ?? DRAIN_TIMEOUT_MS_DEFAULT);
    return reply.code(202).send(view);
  });
  app.get('/v1/admin/drain', async () => deps.drain.view());
  app.delete('/v1/admin/drain', async () => deps.drain.cancel());
}
