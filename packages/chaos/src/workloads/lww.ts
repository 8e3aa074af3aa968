/**
 * Last-writer-wins registers: read the key, then write a new value (or, now and then, delete it)
 * with the read's context, so the write replaces exactly the siblings the read saw. The value
 * carries the writer's clock (skewed under the clock fault); readers resolve siblings with
 * `resolvers.lww({ timestamp: (v) => v.ts })`. During an isolate fault some ops read and write
 * through the node cut off (R=W=1), and some deletes read there and delete on the other side.
 */
import type { LwwValue } from '../history.js';
import {
  completionOf,
  errorText,
  pickKey,
  type Recorder,
  replicates,
  type Step,
  type Target,
  targetFields,
  type WorkerContext,
  weakTarget,
} from './worker.js';

/** A register worker: deletes about `deleteRatio` of the time, writes otherwise. */
export function lwwStep(deleteRatio = 0.1): Step {
  let seq = 0;
  return async (ctx) => {
    const key = pickKey(ctx, 'lww');
    const value: LwwValue = { id: `${ctx.process}:${++seq}`, ts: ctx.clockMs() };
    const f = ctx.random() < deleteRatio ? 'delete' : 'write';
    const { read, write } = await routes(ctx, key, f);
    await lwwOp(ctx, { key, value, f, read, write });
  };
}

/**
 * The routing client, or during an isolate fault, on keys the node cut off replicates: all through
 * it, or a read there and a delete on the other side.
 */
async function routes(
  ctx: WorkerContext,
  key: string,
  f: 'write' | 'delete',
): Promise<{ read: Target; write: Target }> {
  const isolation = ctx.isolation();
  const own = { client: ctx.client };
  if (isolation === undefined || !(await replicates(ctx, isolation.node, key)))
    return { read: own, write: own };
  const weak = weakTarget(isolation);
  const draw = ctx.random();
  if (draw < 0.4) return { read: weak, write: weak };
  if (f === 'delete' && draw < 0.8)
    return { read: weak, write: { client: isolation.otherClient, via: isolation.other } };
  return { read: own, write: own };
}

export interface LwwOpSpec {
  readonly key: string;
  readonly value: LwwValue;
  readonly f: 'write' | 'delete';
  readonly read: Target;
  readonly write: Target;
}

/** One read-then-write (or read-then-delete) with the read's context; answers its completion. */
export async function lwwOp(rec: Recorder, spec: LwwOpSpec): Promise<'ok' | 'fail' | 'info'> {
  const { key, value, f, read, write } = spec;
  const readVia = read.via !== undefined && read.via !== write.via ? { readVia: read.via } : {};
  const op = {
    kind: 'op',
    process: rec.process,
    workload: 'lww',
    f,
    key,
    value,
    ...targetFields(write),
    ...readVia,
  } as const;
  const signal = rec.signal === undefined ? {} : { signal: rec.signal };
  const done = (type: 'ok' | 'fail' | 'info', observed: string[], error?: string): 'ok' | 'fail' | 'info' => {
    rec.history.add({
      ...op,
      type,
      atMs: rec.history.now(),
      observed,
      ...(error === undefined ? {} : { error }),
    });
    return type;
  };
  rec.history.add({ ...op, type: 'invoke', atMs: rec.history.now() });
  let observed: string[] = [];
  let context: string | undefined;
  try {
    const got = await read.client.get<LwwValue>(key, signal);
    observed = got.siblings.map((s) => s.id);
    context = got.context;
  } catch (err) {
    // Nothing was written: the op surely failed.
    return done('fail', observed, errorText(err));
  }
  // Nothing to delete; a delete without a context would delete what it did not read.
  if (f === 'delete' && context === undefined) return done('fail', observed, 'nothing to delete');
  try {
    if (f === 'delete') await write.client.delete(key, { context, ...signal });
    else await write.client.put<LwwValue>(key, value, { context, ...signal });
    return done('ok', observed);
  } catch (err) {
    // A put is retried only when it surely did not reach a node; a delete with a context is
    // retried after any transient failure, so its last error says nothing about earlier tries.
    return done(completionOf(err, f === 'delete'), observed, errorText(err));
  }
}
