/**
 * GET /v1/kv?prefix=P&limit=L&cursor=C: one page of the live keys that start with a prefix, found by
 * a coverage query over the partitions (coordinator/coverage.ts; its cost and consistency are in
 * docs/api.md). Answers `{ "keys": [...], "cursor": "<opaque>" | null }`; null once every partition
 * was scanned. A page may hold fewer than `limit` keys, even none, and still have a cursor.
 */
import type { Ring } from '@tessera/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Coverage } from '../coordinator/coverage.js';
import { decodeListCursor, encodeListCursor } from './list-cursor.js';
import type { RequestGuard } from './request-guard.js';
import { LIST_LIMIT_DEFAULT, listQuerySchema, parseInput } from './schemas.js';

/** What the listing route uses of a node. */
export interface ListRouteDeps {
  readonly config: Pick<Config, 'requestTimeoutMs'>;
  readonly coverage: Pick<Coverage, 'list'>;
  /** The ring keys are placed on now (its partition count scopes cursors). */
  readonly ring: () => Ring;
}

export interface ListPageBody {
  readonly keys: string[];
  readonly cursor: string | null;
}

export function registerListRoutes(app: FastifyInstance, deps: ListRouteDeps, guard: RequestGuard): void {
  // A listing is paced by the background gate; its latency would only slow the gate down further.
  app.get(
    '/v1/kv',
    { onRequest: guard.admit('list') },
    guard.guarded('list', (req) => listKeys(deps, req), { foreground: false }),
  );
}

async function listKeys(deps: ListRouteDeps, req: FastifyRequest): Promise<ListPageBody> {
  const query = parseInput(listQuerySchema, req.query, 'query');
  const prefix = query.prefix ?? '';
  const scope = { partitionCount: deps.ring().partitionCount, prefix };
  const from = query.cursor === undefined ? { partition: 0 } : decodeListCursor(query.cursor, scope);
  const page = await deps.coverage.list({
    prefix,
    limit: query.limit ?? LIST_LIMIT_DEFAULT,
    from,
    timeoutMs: query.timeoutMs ?? deps.config.requestTimeoutMs,
  });
  return { keys: page.keys, cursor: page.next === undefined ? null : encodeListCursor(page.next, scope) };
}
