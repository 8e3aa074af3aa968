/**
 * Last-writer-wins registers: read the key, then write a new value (or, now and then, delete it)
 * with the read's context, so the write replaces exactly the siblings the read saw. The value
 * carries the writer's clock (skewed under the clock fault); readers resolve siblings with
 * `resolvers.lww({ timestamp: (v) => v.ts })`.
 */
import type { LwwValue } from '../history.js';
import { completionOf, errorText, pickKey, type Step } from './worker.js';

/** A register worker: deletes about `deleteRatio` of the time, writes otherwise. */
export function lwwStep(deleteRatio = 0.1): Step {
  let seq = 0;
  return async (ctx) => {
    const key = pickKey(ctx, 'lww');
    const value: LwwValue = { id: `${ctx.process}:${++seq}`, ts: ctx.clockMs() };
    const f = ctx.random() < deleteRatio ? 'delete' : 'write';
    const op = { kind: 'op', process: ctx.process, workload: 'lww', f, key, value } as const;
    ctx.history.add({ ...op, type: 'invoke', atMs: ctx.history.now() });
    let observed: string[] = [];
    let context: string | undefined;
    try {
      const read = await ctx.client.get<LwwValue>(key, { signal: ctx.signal });
      observed = read.siblings.map((s) => s.id);
      context = read.context;
    } catch (err) {
      // Nothing was written: the op surely failed.
      ctx.history.add({ ...op, type: 'fail', atMs: ctx.history.now(), observed, error: errorText(err) });
      return;
    }
    if (f === 'delete' && context === undefined) {
      // Nothing to delete; a delete without a context would delete what it did not read.
      ctx.history.add({ ...op, type: 'fail', atMs: ctx.history.now(), observed, error: 'nothing to delete' });
      return;
    }
    try {
      if (f === 'delete') await ctx.client.delete(key, { context, signal: ctx.signal });
      else await ctx.client.put<LwwValue>(key, value, { context, signal: ctx.signal });
      ctx.history.add({ ...op, type: 'ok', atMs: ctx.history.now(), observed });
    } catch (err) {
      // A put is retried only when it surely did not reach a node; a delete with a context is
      // retried after any transient failure, so its last error says nothing about earlier tries.
      const type = completionOf(err, f === 'delete');
      ctx.history.add({ ...op, type, atMs: ctx.history.now(), observed, error: errorText(err) });
    }
  };
}
