/**
 * Jepsen's Riak set test: add a unique integer to a set by read-modify-write, siblings merged
 * with `resolvers.union()`. Now and then the add is a blind write instead (the integer alone,
 * without a context: a new sibling), the kind of write that finds a node whose version vector
 * claims writes it no longer holds (Riak's KV679). Every acknowledged add must survive.
 */
import { resolvers } from '@tessera/client';
import {
  completionOf,
  errorText,
  pickKey,
  pickTarget,
  type Recorder,
  type Step,
  type Target,
  targetFields,
} from './worker.js';

const union = resolvers.union<number[]>();

/** A set worker: blind adds about `blindRatio` of the time, read-modify-write adds otherwise. */
export function setStep(blindRatio = 0.15): Step {
  return async (ctx) => {
    const key = pickKey(ctx, 'set');
    const value = ctx.nextId();
    const target = await pickTarget(ctx, key);
    if (ctx.random() < blindRatio) await blindAdd(ctx, key, value, target);
    else await updateAdd(ctx, key, value, target);
  };
}

/** Adds `value` by `update()`: read, union of the siblings plus `value`, write with the context. */
export async function updateAdd(rec: Recorder, key: string, value: number, target: Target): Promise<boolean> {
  const op = {
    kind: 'op',
    process: rec.process,
    workload: 'set',
    f: 'add',
    key,
    value,
    ...targetFields(target),
  } as const;
  rec.history.add({ ...op, type: 'invoke', atMs: rec.history.now() });
  try {
    await target.client.update<number[]>(
      key,
      (set) => (set?.includes(value) ? set : [...(set ?? []), value]),
      { resolver: union, retries: 3, ...(rec.signal === undefined ? {} : { signal: rec.signal }) },
    );
    rec.history.add({ ...op, type: 'ok', atMs: rec.history.now() });
    return true;
  } catch (err) {
    // update() may have written in an earlier round before it gave up: never a sure 'fail'.
    rec.history.add({ ...op, type: completionOf(err, true), atMs: rec.history.now(), error: errorText(err) });
    return false;
  }
}

/**
 * Adds `value` by a put of `[...carried, value]`: without a context (blind) it becomes a sibling of
 * what is there; with one it replaces what that context covers. Answers the new context when acknowledged.
 */
export async function putAdd(
  rec: Recorder,
  key: string,
  value: number,
  target: Target,
  withContext?: { readonly carried: readonly number[]; readonly context: string },
): Promise<string | undefined> {
  const op = {
    kind: 'op',
    process: rec.process,
    workload: 'set',
    f: 'add',
    key,
    value,
    ...targetFields(target),
    ...(withContext === undefined ? { blind: true } : {}),
  } as const;
  rec.history.add({ ...op, type: 'invoke', atMs: rec.history.now() });
  try {
    const written = await target.client.put<number[]>(key, [...(withContext?.carried ?? []), value], {
      ...(withContext === undefined ? {} : { context: withContext.context }),
      ...(rec.signal === undefined ? {} : { signal: rec.signal }),
    });
    rec.history.add({ ...op, type: 'ok', atMs: rec.history.now() });
    return written.context;
  } catch (err) {
    // A put is retried only when it surely did not reach a node: its last error says whether it may have been applied.
    rec.history.add({
      ...op,
      type: completionOf(err, false),
      atMs: rec.history.now(),
      error: errorText(err),
    });
    return undefined;
  }
}

export async function blindAdd(rec: Recorder, key: string, value: number, target: Target): Promise<boolean> {
  return (await putAdd(rec, key, value, target)) !== undefined;
}
