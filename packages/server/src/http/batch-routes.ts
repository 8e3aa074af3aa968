/**
 * POST /v1/kv/batch-get `{ "keys": [...], "r"?, "timeoutMs"? }`: up to BATCH_KEYS_MAX keys, each
 * read through the coordinator's normal quorum read, a few at a time. Answers
 * `{ "results": [...] }` in request order, one per key given: `{ key, context, siblings }` as a get
 * answers (`siblings` empty for a key with no live value, `context` then present only after a
 * delete), or `{ key, error: { code, message, details? } }` for a key whose read failed. A strong
 * key is not read here (it has no siblings; its value is in its register): its result is an error
 * that says where to read it, never an empty answer.
 */
import { TesseraError } from '@tessera/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdmissionController } from '../background/admission.js';
import type { Config } from '../config.js';
import type { Coordinator } from '../coordinator/coordinator.js';
import { type ContextSeal, contextSeal } from './contexts.js';
import { renderSiblings } from './render.js';
import type { RequestGuard } from './request-guard.js';
import { batchGetBodySchema, parseInput } from './schemas.js';

/** Keys read at once within one batch. */
export const BATCH_CONCURRENCY = 8;
/** Sibling value bytes one batch answers, at most; keys past it fail with VALUE_TOO_LARGE. */
export const BATCH_VALUE_BYTES_MAX = 16 * 1024 * 1024;
/** The body of a batch: 100 keys of 1024 bytes fit even with every character escaped. */
export const BATCH_BODY_BYTES_MAX = 1024 * 1024;

/** What the batch route uses of a node. */
export interface BatchRouteDeps {
  readonly config: Pick<Config, 'clusterSecret' | 'requestTimeoutMs' | 'n'>;
  readonly coordinator: Pick<Coordinator, 'get'>;
  /** Each key's read latency is a foreground latency (paper 6.5). */
  readonly admission: Pick<AdmissionController, 'recordForeground'>;
  readonly strong: { readonly isStrong: (key: string) => boolean };
}

export function registerBatchRoutes(app: FastifyInstance, deps: BatchRouteDeps, guard: RequestGuard): void {
  const contexts = contextSeal(deps.config.clusterSecret);
  app.post(
    '/v1/kv/batch-get',
    { onRequest: guard.admit('batch_get'), bodyLimit: BATCH_BODY_BYTES_MAX },
    // Each read feeds the gate on its own; the whole batch's latency is no foreground latency.
    guard.guarded('batch_get', (req, reply) => batchGet(deps, contexts, req, reply), { foreground: false }),
  );
}

const encoder = new TextEncoder();

async function batchGet(
  deps: BatchRouteDeps,
  contexts: ContextSeal,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const body = parseInput(batchGetBodySchema, req.body, 'body');
  if (body.r !== undefined && body.r > deps.config.n) {
    throw new TesseraError(
      'INVALID_QUORUM',
      `r must be a whole number from 1 to N (${deps.config.n}); got ${body.r}.`,
      {
        r: body.r,
        n: deps.config.n,
      },
    );
  }
  const deadlineMs = Date.now() + (body.timeoutMs ?? deps.config.requestTimeoutMs);
  const unique = [...new Set(body.keys)];
  const answers = new Map<string, Uint8Array>();
  let valueBytes = 0;
  const readOne = async (key: string): Promise<Uint8Array> => {
    if (valueBytes >= BATCH_VALUE_BYTES_MAX) {
      return failed(
        key,
        new TesseraError(
          'VALUE_TOO_LARGE',
          `The batch answer already holds ${BATCH_VALUE_BYTES_MAX} bytes of values, its limit. Get this key in another batch or on its own.`,
        ),
      );
    }
    if (deps.strong.isStrong(key)) return failed(key, strongKeyInBatch(key));
    const timeoutMs = deadlineMs - Date.now();
    if (timeoutMs <= 0) {
      return failed(key, new TesseraError('TIMEOUT', 'The batch deadline passed before this key was read.'));
    }
    const startedMs = performance.now();
    try {
      const { state, context } = await deps.coordinator.get(key, {
        timeoutMs,
        ...(body.r === undefined ? {} : { r: body.r }),
      });
      deps.admission.recordForeground(performance.now() - startedMs);
      for (const s of state.siblings) valueBytes += s.value.byteLength;
      if (state.siblings.length === 0 && state.vv.length === 0) {
        return encoder.encode(`{"key":${JSON.stringify(key)},"siblings":[]}`);
      }
      return renderSiblings(key, contexts.seal(key, context), state);
    } catch (err) {
      if (TesseraError.is(err)) return failed(key, err);
      req.log.error({ err, key }, 'batch get: a read failed unexpectedly');
      return failed(key, new TesseraError('INTERNAL', 'The read failed unexpectedly; it is logged.'));
    }
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < unique.length; i = next++) {
      const key = unique[i]!;
      answers.set(key, await readOne(key));
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, unique.length) }, worker));
  const parts: Uint8Array[] = [encoder.encode('{"results":[')];
  body.keys.forEach((key, i) => {
    if (i > 0) parts.push(encoder.encode(','));
    parts.push(answers.get(key)!);
  });
  parts.push(encoder.encode(']}'));
  return reply.type('application/json').send(Buffer.concat(parts));
}

function strongKeyInBatch(key: string): TesseraError {
  return new TesseraError(
    'BAD_REQUEST',
    `"${key.slice(0, 200)}" is a strong key: read it with GET /v1/kv/<key>, or many strong keys at one instant with POST /v1/transactions/get.`,
  );
}

function failed(key: string, err: TesseraError): Uint8Array {
  return encoder.encode(JSON.stringify({ key, error: err.toJSON() }));
}
