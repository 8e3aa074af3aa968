/** GET, PUT and DELETE /v1/kv/:key — the client API (see docs/api.md). */
import type { IncomingHttpHeaders } from 'node:http';
import { encodeContext, type KeyState, TesseraError } from '@tessera/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdmissionController } from '../background/admission.js';
import type { Config } from '../config.js';
import type { Coordinator } from '../coordinator/coordinator.js';
import type { WriteResult } from '../coordinator/receipt.js';
import type { NodeMetrics } from '../node/metrics.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import { promised } from '../util/promised.js';
import { type ContextSeal, contextSeal } from './contexts.js';
import { bodyText, sentValue } from './json-body.js';
import { renderSiblings, renderWriteAnswer } from './render.js';
import { type RequestGuard, requestGuard } from './request-guard.js';
import {
  deleteBodySchema,
  deleteQuerySchema,
  parseInput,
  parsePutBody,
  type ReadQuery,
  readQuerySchema,
  validateKey,
  type WriteQuery,
  writeQuerySchema,
} from './schemas.js';
import { type StrongRouteDeps, strongGet, strongWrite } from './strong-routes.js';

/** What the key-value routes use of a node. */
export type KvRouteDeps = {
  readonly config: Pick<Config, 'clusterSecret' | 'inflightMax'>;
  readonly coordinator: Pick<Coordinator, 'get' | 'write'>;
  /** For `?local=true` reads: this node's own copy. */
  readonly store: Pick<ReplicaStore, 'read'>;
  readonly metrics: Pick<NodeMetrics, 'requests' | 'inflight' | 'latency' | 'siblings'>;
  /** Foreground latencies, which background work yields to (paper 6.5). */
  readonly admission: Pick<AdmissionController, 'recordForeground'>;
} & StrongRouteDeps;

export function registerKvRoutes(
  app: FastifyInstance,
  deps: KvRouteDeps,
  guard: RequestGuard = requestGuard(deps),
): void {
  const contexts = contextSeal(deps.config.clusterSecret);
  const { admit, guarded } = guard;
  app.get(
    '/v1/kv/:key',
    { onRequest: admit('get') },
    guarded('get', (req, reply) => getKey(deps, contexts, req, reply)),
  );
  app.put(
    '/v1/kv/:key',
    { onRequest: admit('put') },
    guarded('put', (req, reply) => putKey(deps, contexts, req, reply)),
  );
  app.delete(
    '/v1/kv/:key',
    { onRequest: admit('delete') },
    guarded('delete', (req, reply) => deleteKey(deps, contexts, req, reply)),
  );
}

/**
 * The key: the path segment, or the `key` query parameter when the segment is empty (the only way
 * to send the keys `.` and `..`, which URL parsers remove from paths).
 */
function keyOf(
  req: FastifyRequest,
  query: { key?: string | undefined; consistency?: 'strong' | undefined },
  strong?: StrongRouteDeps['strong'],
): string {
  const key = segmentOrQueryKey(req, query);
  if (query.consistency === 'strong' && strong !== undefined && !strong.isStrong(key)) {
    throw new TesseraError(
      'NOT_STRONG_KEY',
      `Key "${key.slice(0, 200)}" is in no strong namespace of this node (--strong); nothing was read or written. Use a plain read or write, or declare its namespace on every node.`,
      { key },
    );
  }
  return key;
}

function segmentOrQueryKey(req: FastifyRequest, query: { key?: string | undefined }): string {
  const segment = (req.params as { key?: unknown }).key;
  if (query.key === undefined) return validateKey(segment);
  if (segment !== '') {
    throw new TesseraError(
      'BAD_REQUEST',
      'Give the key either in the path (/v1/kv/<key>) or as ?key= after /v1/kv/, not both.',
    );
  }
  return validateKey(query.key);
}

/** A key-value answer, whichever front sends it: its status and JSON body (a get's as its bytes). */
export interface KvAnswer {
  readonly status: number;
  /**
   * Bytes rendered by hand (sent as `application/json`), JSON text rendered by hand (sent as
   * `application/json; charset=utf-8`, as fastify types what it serializes), or an object to
   * serialize.
   */
  readonly body: Buffer | string | object;
}

/** The content type fastify gives the JSON it serializes; a rendered answer's text says the same. */
export const JSON_TEXT_TYPE = 'application/json; charset=utf-8';

function sendAnswer(reply: FastifyReply, answer: KvAnswer): FastifyReply {
  reply.code(answer.status);
  const { body } = answer;
  if (Buffer.isBuffer(body)) return reply.type('application/json').send(body);
  return typeof body === 'string' ? reply.type(JSON_TEXT_TYPE).send(body) : reply.send(body);
}

async function getKey(
  deps: KvRouteDeps,
  contexts: ContextSeal,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const query = parseInput(readQuerySchema, req.query, 'query');
  const key = keyOf(req, query, deps.strong);
  if (deps.strong.isStrong(key)) return strongGet(deps, key, query, reply);
  return sendAnswer(reply, await readAnswer(deps, contexts, key, query));
}

/** A plain (not strong) key's get: its siblings and context, or NOT_FOUND. */
export function readAnswer(
  deps: KvRouteDeps,
  contexts: ContextSeal,
  key: string,
  query: ReadQuery,
): Promise<KvAnswer> {
  // One reaction, not an async frame: every get runs this.
  const read = promised(() =>
    query.local === 'true'
      ? localRead(deps, key)
      : deps.coordinator.get(key, {
          ...(query.r === undefined ? {} : { r: query.r }),
          ...(query.timeoutMs === undefined ? {} : { timeoutMs: query.timeoutMs }),
        }),
  );
  return read.then(({ state, context: issued }) => answerOfRead(deps, contexts, key, query, state, issued));
}

function answerOfRead(
  deps: KvRouteDeps,
  contexts: ContextSeal,
  key: string,
  query: ReadQuery,
  state: KeyState,
  issued: string,
): KvAnswer {
  const context = contexts.seal(key, issued);
  if (state.siblings.length === 0) {
    // `?missing=ok`: an answer, not an error, so that a browser logs no failed request.
    if (query.missing === 'ok') {
      return { status: 200, body: { key, siblings: [], ...(state.vv.length > 0 ? { context } : {}) } };
    }
    const body = {
      error: { code: 'NOT_FOUND', message: `Key "${key}" has no value.` },
      ...(state.vv.length > 0 ? { context } : {}),
    };
    return { status: 404, body };
  }
  deps.metrics.siblings.observe(state.siblings.length);
  return { status: 200, body: renderSiblings(key, context, state) };
}

async function localRead(deps: KvRouteDeps, key: string) {
  const state = (await deps.store.read(key)) ?? { vv: [], siblings: [] };
  return { state, context: encodeContext(key, { vv: state.vv, dots: [] }) };
}

async function putKey(
  deps: KvRouteDeps,
  contexts: ContextSeal,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const query = parseInput(writeQuerySchema, req.query, 'query');
  const key = keyOf(req, query, deps.strong);
  if (deps.strong.isStrong(key)) {
    const body = parsePutBody(req.body);
    return strongWrite(deps, key, sentValue(body.value, bodyText(req)), body, query, req, reply);
  }
  refuseConditions(req, key);
  return sendAnswer(reply, await putAnswer(deps, contexts, key, query, req.body, bodyText(req)));
}

/**
 * A plain (not strong) key's put of the request body `{ value, context? }`: `input` parsed from
 * `text`, whose `value` member is stored as it was sent.
 */
export function putAnswer(
  deps: KvRouteDeps,
  contexts: ContextSeal,
  key: string,
  query: WriteQuery,
  input: unknown,
  text: string | undefined,
): Promise<KvAnswer> {
  // One reaction, not an async frame: every put runs this.
  const written = promised(() => {
    const body = parsePutBody(input);
    const value = Buffer.from(sentValue(body.value, text), 'utf8');
    return deps.coordinator.write(key, {
      value,
      ...writeOptions(query, opened(contexts, key, body.context)),
    });
  });
  return written.then((result) => ({ status: 200, body: writeAnswer(contexts, key, result) }));
}

async function deleteKey(
  deps: KvRouteDeps,
  contexts: ContextSeal,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const query = parseInput(deleteQuerySchema, req.query, 'query');
  const key = keyOf(req, query, deps.strong);
  const body = parseInput(deleteBodySchema, req.body, 'body');
  if (deps.strong.isStrong(key)) return strongWrite(deps, key, undefined, body, query, req, reply);
  refuseConditions(req, key);
  try {
    const written = await deps.coordinator.write(key, {
      value: undefined,
      ...writeOptions(query, opened(contexts, key, body.context)),
    });
    reply.type(JSON_TEXT_TYPE);
    return writeAnswer(contexts, key, written);
  } catch (err) {
    // `?missing=ok`: a delete without context of a key with no value is `{ found: false }`, not a 404.
    if (query.missing === 'ok' && TesseraError.is(err, 'NOT_FOUND')) return { found: false };
    throw err;
  }
}

/**
 * A plain key's write with If-Match or If-None-Match: refused, not run as if unconditional (a
 * client that meant "only if absent" would get a sibling beside the value it meant to keep).
 */
function refuseConditions(req: FastifyRequest, key: string): void {
  if (!hasCondition(req.headers)) return;
  throw new TesseraError(
    'BAD_REQUEST',
    `"${key.slice(0, 200)}" is a plain key: it takes a context from a read, not If-Match or If-None-Match, which apply to strong keys (docs/api.md). A put without a context never overwrites: it adds a sibling.`,
  );
}

/** Whether a write carries a condition (If-Match or If-None-Match), which only strong keys take. */
export function hasCondition(headers: IncomingHttpHeaders): boolean {
  return headers['if-match'] !== undefined || headers['if-none-match'] !== undefined;
}

/**
 * A put's or delete's answer: `{ context, stored }`, where `stored` is the receipt of how the write
 * was stored (coordinator/receipt.ts; absent only when an older node coordinated it).
 */
function writeAnswer(contexts: ContextSeal, key: string, written: WriteResult): string {
  return renderWriteAnswer(contexts.seal(key, written.context), written.stored);
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
