/**
 * Jepsen's Riak set test: add a unique integer to a set by read-modify-write, siblings merged
 * with `resolvers.union()`. Every acknowledged add must survive.
 */
import { resolvers } from '@tessera/client';
import { completionOf, errorText, pickKey, type Step } from './worker.js';

const union = resolvers.union<number[]>();

export const setAdd: Step = async (ctx) => {
  const key = pickKey(ctx, 'set');
  const value = ctx.nextId();
  const op = { kind: 'op', process: ctx.process, workload: 'set', f: 'add', key, value } as const;
  ctx.history.add({ ...op, type: 'invoke', atMs: ctx.history.now() });
  try {
    await ctx.client.update<number[]>(key, (set) => (set?.includes(value) ? set : [...(set ?? []), value]), {
      resolver: union,
      retries: 3,
      signal: ctx.signal,
    });
    ctx.history.add({ ...op, type: 'ok', atMs: ctx.history.now() });
  } catch (err) {
    // update() may have written in an earlier round before it gave up: never a sure 'fail'.
    ctx.history.add({ ...op, type: completionOf(err, true), atMs: ctx.history.now(), error: errorText(err) });
  }
};
