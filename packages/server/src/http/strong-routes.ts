/**
 * Strong keys over HTTP (docs/api.md, "Strong keys"): GET, PUT and DELETE of a key in a strong
 * namespace (called by kv-routes.ts), and POST /v1/transactions and /v1/transactions/get.
 */
import {
  type Condition,
  elementTexts,
  memberText,
  type Register,
  TesseraError,
  type TransactionAction,
} from '@tessera/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StrongService } from '../strong/service.js';
import { bodyText, sentValue } from './json-body.js';
import type { RequestGuard } from './request-guard.js';
import { parseInput } from './schemas.js';
import { transactBodySchema, transactGetBodySchema } from './strong-schemas.js';

export interface StrongRouteDeps {
  readonly strong: Pick<StrongService, 'isStrong' | 'keys' | 'transactions' | 'deadline'>;
}

/** A strong register as the answer body: `{ key, value?, version, consistency }`, value as stored. */
function registerBody(key: string, register: Register, withValue = true): string {
  const value = withValue && register.value !== undefined ? `,"value":${register.value}` : '';
  return `{"key":${JSON.stringify(key)}${value},"version":"${register.version}","consistency":"strong"}`;
}

export async function strongGet(
  deps: StrongRouteDeps,
  key: string,
  query: {
    missing?: string | undefined;
    timeoutMs?: number | undefined;
    r?: number | undefined;
    local?: string | undefined;
  },
  reply: FastifyReply,
): Promise<unknown> {
  if (query.r !== undefined || query.local === 'true') {
    throw new TesseraError(
      'BAD_REQUEST',
      `"${key.slice(0, 200)}" is a strong key: it is always read from a majority of its primaries, so r and local do not apply.`,
    );
  }
  const register = await deps.strong.keys.get(key, deps.strong.deadline(query.timeoutMs));
  reply.header('etag', `"${register.version}"`).type('application/json');
  if (register.value !== undefined) return reply.send(registerBody(key, register));
  if (query.missing === 'ok') return reply.send(registerBody(key, register, false));
  return reply.code(404).send({
    error: {
      code: 'NOT_FOUND',
      message: `Strong key "${key.slice(0, 200)}" has no value.`,
      details: { version: String(register.version) },
    },
  });
}

/** A strong key's put of `text` (its value's JSON text as sent) or, with `text` undefined, its delete. */
export async function strongWrite(
  deps: StrongRouteDeps,
  key: string,
  text: string | undefined,
  body: { context?: string | undefined },
  query: { timeoutMs?: number | undefined; w?: number | undefined },
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  if (body.context !== undefined || query.w !== undefined) {
    throw new TesseraError(
      'BAD_REQUEST',
      `"${key.slice(0, 200)}" is a strong key: it takes If-Match or If-None-Match headers, not a context, and always writes to a majority of its primaries (no w).`,
    );
  }
  const register = await deps.strong.keys.write(
    key,
    text,
    conditionOf(req),
    deps.strong.deadline(query.timeoutMs),
  );
  return reply
    .header('etag', `"${register.version}"`)
    .type('application/json')
    .send(registerBody(key, register, false));
}

/** The condition of If-Match / If-None-Match, at most one of them. */
export function conditionOf(req: FastifyRequest): Condition | undefined {
  const ifMatch = req.headers['if-match'];
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifMatch !== undefined && ifNoneMatch !== undefined) {
    throw new TesseraError('BAD_REQUEST', 'Send If-Match or If-None-Match, not both.');
  }
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() !== '*') {
      throw new TesseraError('BAD_REQUEST', 'If-None-Match takes only * (create only if absent).');
    }
    return { ifAbsent: true };
  }
  if (ifMatch === undefined) return undefined;
  const tag = ifMatch.trim();
  if (tag === '*') return { ifExists: true };
  const match = /^"?(\d{1,15})"?$/.exec(tag);
  if (match?.[1] === undefined) {
    throw new TesseraError('BAD_REQUEST', 'If-Match takes a version from a read ("12") or *.');
  }
  return { ifVersion: match[1] };
}

export function registerTransactionRoutes(
  app: FastifyInstance,
  deps: StrongRouteDeps,
  guard: RequestGuard,
): void {
  const { admit, guarded } = guard;
  app.post(
    '/v1/transactions',
    { onRequest: admit('transact') },
    guarded('transact', (req) => transact(deps, req)),
  );
  app.post(
    '/v1/transactions/get',
    { onRequest: admit('transact_get') },
    guarded('transact_get', (req, reply) => transactGet(deps, req, reply)),
  );
}

async function transact(deps: StrongRouteDeps, req: FastifyRequest): Promise<unknown> {
  const body = parseInput(transactBodySchema, req.body, 'body');
  const keys = body.actions.map((a) => a.key);
  checkKeys(deps, keys);
  const sent = actionTexts(req, body.actions.length);
  const actions: TransactionAction[] = body.actions.map((a, i) => {
    const condition = a.condition === undefined ? {} : { condition: a.condition };
    if (a.type === 'put')
      return { type: 'put', key: a.key, value: sentValue(a.value, sent?.[i]), ...condition };
    if (a.type === 'delete') return { type: 'delete', key: a.key, ...condition };
    return { type: 'conditionCheck', key: a.key, condition: a.condition };
  });
  const deadlineMs = deps.strong.deadline(body.timeoutMs);
  const versions = await deps.strong.transactions.transact(actions, body.clientRequestToken, deadlineMs);
  return { committed: true, versions };
}

/** The texts of the body's actions as sent, in the order parsed; undefined when not known. */
function actionTexts(req: FastifyRequest, count: number): readonly string[] | undefined {
  const text = bodyText(req);
  const actions = text === undefined ? undefined : memberText(text, 'actions');
  const elements = actions === undefined ? undefined : elementTexts(actions);
  return elements?.length === count ? elements : undefined;
}

async function transactGet(
  deps: StrongRouteDeps,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const body = parseInput(transactGetBodySchema, req.body, 'body');
  checkKeys(deps, body.keys);
  const items = await deps.strong.transactions.snapshot(body.keys, deps.strong.deadline(body.timeoutMs));
  const rendered = items.map(({ key, register }) => {
    const found = register.value !== undefined;
    const value = found ? `,"value":${register.value}` : '';
    return `{"key":${JSON.stringify(key)},"found":${found}${value},"version":"${register.version}"}`;
  });
  return reply.type('application/json').send(`{"items":[${rendered.join(',')}]}`);
}

/** Keys unique and every one strong. */
function checkKeys(deps: StrongRouteDeps, keys: readonly string[]): void {
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) {
      throw new TesseraError(
        'BAD_REQUEST',
        `Key "${key.slice(0, 200)}" appears twice; a transaction names each key once.`,
      );
    }
    seen.add(key);
    if (!deps.strong.isStrong(key)) {
      throw new TesseraError(
        'NOT_STRONG_KEY',
        `Key "${key.slice(0, 200)}" is in no strong namespace; transactions take strong keys only. Declare its namespace with --strong on every node.`,
        { key },
      );
    }
  }
}
