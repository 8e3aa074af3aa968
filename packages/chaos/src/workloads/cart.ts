/**
 * Carts with `resolvers.cart()`: add a unique item, or remove an item this worker added (once its
 * add was acknowledged). Acknowledged adds must survive unless removed; an item an acknowledged
 * remove saw must never come back.
 */
import { type Cart, cart, resolvers } from '@tessera/client';
import type { RemoveSeen } from '../history.js';
import {
  completionOf,
  errorText,
  pickKey,
  pickTarget,
  type Step,
  type Target,
  targetFields,
  type WorkerContext,
} from './worker.js';

const resolver = resolvers.cart();
/** Items a worker remembers for removal, at most (older ones are simply kept). */
const REMOVABLE_MAX = 200;

interface Added {
  readonly key: string;
  readonly item: string;
}

/** A cart worker: adds about `addRatio` of the time, removes otherwise (during an isolate fault, half of them through the node cut off). */
export function cartStep(addRatio = 0.6): Step {
  const removable: Added[] = [];
  return async (ctx) => {
    if (removable.length === 0 || ctx.random() < addRatio) {
      const added = await add(ctx);
      if (added !== undefined) {
        removable.push(added);
        if (removable.length > REMOVABLE_MAX) removable.shift();
      }
      return;
    }
    const index = Math.floor(ctx.random() * removable.length);
    const [target] = removable.splice(index, 1);
    if (target !== undefined) await remove(ctx, target, await pickTarget(ctx, target.key));
  };
}

async function add(ctx: WorkerContext): Promise<Added | undefined> {
  const key = pickKey(ctx, 'cart');
  const to = await pickTarget(ctx, key);
  const item = `i${ctx.nextId()}`;
  const op = {
    kind: 'op',
    process: ctx.process,
    workload: 'cart',
    f: 'add',
    key,
    value: item,
    ...targetFields(to),
  } as const;
  ctx.history.add({ ...op, type: 'invoke', atMs: ctx.history.now() });
  try {
    await to.client.update<Cart>(key, cart.add(item, 1, { now: ctx.clockMs }), {
      resolver,
      retries: 3,
      signal: ctx.signal,
    });
    ctx.history.add({ ...op, type: 'ok', atMs: ctx.history.now() });
    return { key, item };
  } catch (err) {
    ctx.history.add({ ...op, type: completionOf(err, true), atMs: ctx.history.now(), error: errorText(err) });
    return undefined;
  }
}

async function remove(ctx: WorkerContext, target: Added, to: Target): Promise<void> {
  const { key, item } = target;
  const op = {
    kind: 'op',
    process: ctx.process,
    workload: 'cart',
    f: 'remove',
    key,
    value: item,
    ...targetFields(to),
  } as const;
  ctx.history.add({ ...op, type: 'invoke', atMs: ctx.history.now() });
  const seen: { last: boolean; inSomeAttempt: boolean } = { last: false, inSomeAttempt: false };
  const removeItem = cart.remove(item, { now: ctx.clockMs });
  const observe = (current: Cart | undefined): Cart => {
    seen.last = cart.quantity(current, item) > 0;
    seen.inSomeAttempt ||= seen.last;
    return removeItem(current);
  };
  try {
    await to.client.update<Cart>(key, observe, { resolver, retries: 3, signal: ctx.signal });
    ctx.history.add({ ...op, type: 'ok', atMs: ctx.history.now(), seen: { ...seen } satisfies RemoveSeen });
  } catch (err) {
    const type = completionOf(err, true);
    ctx.history.add({ ...op, type, atMs: ctx.history.now(), seen: { ...seen }, error: errorText(err) });
  }
}
