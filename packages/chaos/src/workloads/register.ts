/**
 * Strong registers (`registers/<key>`, a strong namespace): workers read, put blind, put with
 * If-Match (compare-and-set on the version) or delete a few keys over plain HTTP, each request to
 * one member. Every put writes a value no other write uses, so a read names the write it saw. The
 * history of each key must be linearizable (checker/registers.ts): there is one order of the ops,
 * each at an instant inside its interval, that a compare-and-set register with versions explains.
 *
 * Outcomes: an answer is definite (a 412 is a cas that surely did not apply, and carries the
 * version it met); a refused connection is a definite failure; anything else (a reset, a timeout,
 * a 5xx, STRONG_UNAVAILABLE included: the node may have run part of the round) is unknown.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { between } from '@tessera/core';
import type { Completion, RegisterOut } from '../history.js';
import { errorOf, keyPath, type Reply, replyText, strongCall, versionOf } from './strong-http.js';
import { EPOCH_MS, type Recorder, type Step, type WorkerContext } from './worker.js';

export const REGISTER_NAMESPACE = 'registers';

/** Of a register worker's ops: reads, blind puts, compare-and-sets (most after a read), deletes. */
const MIX = { read: 0.3, write: 0.2, cas: 0.4 } as const;
/** Share of the compare-and-sets that read the key first (the rest use the last version this worker saw). */
const CAS_READ_FIRST = 0.7;

/** A register key of the current epoch: fresh keys every 30 s keep each key's history short. */
export function registerKey(ctx: WorkerContext): string {
  const epoch = Math.floor(ctx.history.now() / EPOCH_MS);
  return `${REGISTER_NAMESPACE}/e${epoch}-k${between(ctx.random, 0, ctx.keysPerEpoch - 1)}`;
}

export type RegisterF = 'read' | 'write' | 'cas' | 'delete';

export interface RegisterSpec {
  readonly key: string;
  readonly f: RegisterF;
  readonly value?: string;
  readonly expect?: number;
  readonly afterHeal?: boolean;
}

export function registerStep(): Step {
  /** The last version this worker saw of each key. */
  const seen = new Map<string, number>();
  return async (ctx) => {
    const key = registerKey(ctx);
    const node = ctx.strong.pickNode(ctx.random);
    if (node === undefined) {
      await sleep(100);
      return;
    }
    const url = ctx.strong.url(node);
    const draw = ctx.random();
    const remember = (out: RegisterOut | undefined): void => {
      if (out?.version !== undefined && !Number.isNaN(out.version)) seen.set(key, out.version);
    };
    if (draw < MIX.read) {
      remember(await registerOp(ctx, url, node, { key, f: 'read' }));
      return;
    }
    if (draw < MIX.read + MIX.write) {
      remember(await registerOp(ctx, url, node, { key, f: 'write', value: `v${ctx.nextId()}` }));
      return;
    }
    if (draw < MIX.read + MIX.write + MIX.cas) {
      if (ctx.random() < CAS_READ_FIRST) remember(await registerOp(ctx, url, node, { key, f: 'read' }));
      const expect = seen.get(key) ?? 0;
      remember(await registerOp(ctx, url, node, { key, f: 'cas', value: `v${ctx.nextId()}`, expect }));
      return;
    }
    remember(await registerOp(ctx, url, node, { key, f: 'delete' }));
  };
}

/** One request, recorded as an op; answers its output when it has one. */
export async function registerOp(
  rec: Recorder,
  url: string,
  node: string,
  spec: RegisterSpec,
): Promise<RegisterOut | undefined> {
  const { key, f, value, expect, afterHeal } = spec;
  const op = {
    kind: 'op',
    process: rec.process,
    workload: 'register',
    f,
    key,
    via: node,
    ...(value === undefined ? {} : { value }),
    ...(expect === undefined ? {} : { expect }),
    ...(afterHeal === true ? { afterHeal } : {}),
  } as const;
  rec.history.add({ ...op, type: 'invoke', atMs: rec.history.now() });
  const signal = rec.signal === undefined ? {} : { signal: rec.signal };
  let reply: Reply;
  if (f === 'read') reply = await strongCall(url, 'GET', `${keyPath(key)}?missing=ok`, signal);
  else if (f === 'delete') reply = await strongCall(url, 'DELETE', keyPath(key), signal);
  else {
    const headers = f === 'cas' ? { headers: { 'if-match': `"${expect ?? 0}"` } } : {};
    reply = await strongCall(url, 'PUT', keyPath(key), { body: { value }, ...headers, ...signal });
  }
  const done = outcome(f, reply);
  rec.history.add({
    ...op,
    type: done.type,
    atMs: rec.history.now(),
    ...(done.out === undefined ? {} : { out: done.out }),
    ...(done.type === 'ok' ? {} : { error: replyText(reply) }),
  });
  return done.out;
}

/** Answers that surely changed nothing: bad requests, a failed condition, admission refused. */
const DEFINITE_FAILURES = new Set([400, 404, 409, 412, 413, 429]);

/** How an op completes, and its output for the checker. */
export function outcome(f: RegisterF, reply: Reply): { type: Completion; out?: RegisterOut } {
  if (reply.kind === 'refused') return { type: 'fail' };
  if (reply.kind === 'unknown') return { type: 'info' };
  const body = reply.body as { value?: unknown; version?: unknown };
  if (reply.status === 200) {
    const version = versionOf(body.version);
    if (Number.isNaN(version)) return { type: 'info' };
    if (f !== 'read' || !('value' in body)) return { type: 'ok', out: { ok: true, version } };
    // The workload writes strings; anything else is a value nobody wrote, and must fail the check.
    const value = typeof body.value === 'string' ? body.value : JSON.stringify(body.value);
    return { type: 'ok', out: { ok: true, value, version } };
  }
  if (reply.status === 412 && f === 'cas') {
    const version = versionOf(errorOf(reply.body).details.currentVersion);
    return { type: 'fail', out: Number.isNaN(version) ? { ok: false } : { ok: false, version } };
  }
  return { type: DEFINITE_FAILURES.has(reply.status) ? 'fail' : 'info' };
}
