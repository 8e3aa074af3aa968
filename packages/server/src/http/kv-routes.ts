/** GET, PUT and DELETE /v1/kv/:key — the client API (see docs/api.md). */
import { encodeContext, TesseraError } from '@tessera/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdmissionController } from '../background/admission.js';
import type { Config } from '../config.js';
import type { Coordinator } from '../coordinator/coordinator.js';
import type { NodeMetrics } from '../node/metrics.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import { type ContextSeal, contextSeal } from './contexts.js';
import { renderSiblings } from './render.js';
import {
  deleteBodySchema,
  parseInput,
  putBodySchema,
  readQuerySchema,
  validateKey,
  writeQuerySchema,
} from './schemas.js';

type Op = 'get' | 'put' | 'delete' | 'get_local';

/** What the key-value routes use of a node. */
export interface KvRouteDeps {
  readonly config: Pick<Config, 'clusterSecret' | 'inflightMax'>;
  readonly coordinator: Pick<Coordinator, 'get' | 'write'>;
  /** For `?local=true` reads: this node's own copy. */
  readonly store: Pick<ReplicaStore, 'read'>;
  readonly metrics: Pick<NodeMetrics, 'requests' | 'inflight' | 'latency' | 'siblings'>;
  /** Foreground latencies, which background work yields to (paper 6.5). */
  readonly admission: Pick<AdmissionController, 'recordForeground'>;
}

export function registerKvRoutes(app: FastifyInstance, deps: KvRouteDeps): void {
  const contexts = contextSeal(deps.config.clusterSecret);
  let inflight = 0;
  /**
   * Admission, in `onRequest`: a request past inflightMax is refused before its body is read, and
   * one admitted counts until its response is done or its connection dropped, body reading included.
   */
  const admit =
    (op: Op) =>
    async (_req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      if (inflight >= deps.config.inflightMax) {
        deps.metrics.requests.inc({ op, outcome: 'OVERLOADED' });
        throw new TesseraError(
          'OVERLOADED',
          `This node is serving ${inflight} requests, its limit. Retry after a second.`,
        );
      }
      inflight++;
      deps.metrics.inflight.set(inflight);
      reply.raw.once('close', () => {
        inflight--;
        deps.metrics.inflight.set(inflight);
      });
    };
  const guarded =
    (op: Op, handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) =>
    async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
      const end = deps.metrics.latency.startTimer({ op });
      const startedMs = performance.now();
      try {
        const result = await handler(req, reply);
        deps.metrics.requests.inc({ op, outcome: reply.statusCode < 400 ? 'ok' : 'NOT_FOUND' });
        return result;
      } catch (err) {
        deps.metrics.requests.inc({ op, outcome: TesseraError.is(err) ? err.code : 'INTERNAL' });
        throw err;
      } finally {
        end();
        deps.admission.recordForeground(performance.now() - startedMs);
      }
    };

  app.get(
    '/v1/kv/:key',
    { onRequest: admit('get') },
    guarded('get', (req, reply) => getKey(deps, contexts, req, reply)),
  );
  app.put(
    '/v1/kv/:key',
    { onRequest: admit('put') },
    guarded('put', (req) => putKey(deps, contexts, req)),
  );
  app.delete(
    '/v1/kv/:key',
    { onRequest: admit('delete') },
    guarded('delete', (req) => deleteKey(deps, contexts, req)),
  );
}

function keyOf(req: FastifyRequest): string {
  return validateKey((req.params as { key?: unknown }).key);
}

async function getKey(
  deps: KvRouteDeps,
  contexts: ContextSeal,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const key = keyOf(req);
  const query = parseInput(readQuerySchema, req.query, 'query');
  const { state, context: issued } =
    query.local === 'true'
      ? await localRead(deps, key)
      : await deps.coordinator.get(key, {
          ...(query.r === undefined ? {} : { r: query.r }),
          ...(query.timeoutMs === undefined ? {} : { timeoutMs: query.timeoutMs }),
        });
  const context = contexts.seal(key, issued);
  if (state.siblings.length === 0) {
    const body = {
      error: { code: 'NOT_FOUND', message: `Key "${key}" has no value.` },
      ...(state.vv.length > 0 ? { context } : {}),
    };
    return reply.code(404).send(body);
  }
  deps.metrics.siblings.observe(state.siblings.length);
  return reply.type('application/json').send(renderSiblings(key, context, state));
}

async function localRead(deps: KvRouteDeps, key: string) {
  const state = (await deps.store.read(key)) ?? { vv: [], siblings: [] };
  return { state, context: encodeContext(key, { vv: state.vv, dots: [] }) };
}

async function putKey(deps: KvRouteDeps, contexts: ContextSeal, req: FastifyRequest): Promise<unknown> {
  const key = keyOf(req);
  const query = parseInput(writeQuerySchema, req.query, 'query');
  const body = parseInput(putBodySchema, req.body, 'body');
  const value = Buffer.from(JSON.stringify(body.value), 'utf8');
  const context = await deps.coordinator.write(key, {
    value,
    ...writeOptions(query, opened(contexts, key, body.context)),
  });
  return { context: contexts.seal(key, context) };
}

async function deleteKey(deps: KvRouteDeps, contexts: ContextSeal, req: FastifyRequest): Promise<unknown> {
  const key = keyOf(req);
  const query = parseInput(writeQuerySchema, req.query, 'query');
  const body = parseInput(deleteBodySchema, req.body, 'body');
  const context = await deps.coordinator.write(key, {
    value: undefined,
    ...writeOptions(query, opened(contexts, key, body.context)),
  });
  return { context: contexts.seal(key, context) };
}

function opened(contexts: ContextSeal, key: string, context: string | undefined): string | undefined {
  return context === undefined ? undefined : contexts.open(key, context);
}

function writeOptions(
  query: { w?: number | undefined; timeoutMs?: number | undefined },
  context: string | undefined,
) {
  return {
    ...(query.w === undefined ? {} : { w: query.w }),
    ...(query.timeoutMs === undefined ? {} : { timeoutMs: query.timeoutMs }),
    ...(context === undefined ? {} : { context }),
  };
}
