/**
 * Checkout's transaction logic (src/server/orders/checkout.ts) against a small fake of Tessera's
 * strong keys: versions, conditions, cancellation reasons in the actions' order, tokens answered
 * with their first outcome, and hooks for what another buyer does between a read and a commit.
 * (`@tessera/client/testing` has no strong keys.)
 */
import {
  type CancellationReason,
  TesseraError,
  type TransactAction,
  type TransactGetItem,
  type TransactOptions,
  type TransactResult,
} from '@tessera/client';
import { describe, expect, it } from 'vitest';
import {
  type Placed,
  placeOrder,
  type StrongOps,
  shortageMessage,
  tokenFor,
} from '../src/server/orders/checkout.js';
import type { StockRecord } from '../src/server/stock/stock.js';
import type { Order, Shortage } from '../src/shared/api.js';

type Reason = Omit<CancellationReason, 'key'> & { key?: string };

class FakeStrong implements StrongOps {
  readonly keys = new Map<string, { value: unknown; version: number }>();
  private readonly tokens = new Map<string, { actions: string; outcome: TransactResult | TesseraError }>();
  /** Transactions received, and those that committed. */
  sent: TransactAction[][] = [];
  committed = 0;
  /** What another buyer does after this one's read and before its transaction is judged (once). */
  before: (() => Promise<void>) | undefined;
  /** This many of the next transactions are canceled by a TransactionConflict on their first key. */
  conflicts = 0;
  /** This many of the next transactions commit but their answer is lost (CONNECTION_FAILED). */
  lostAnswers = 0;
  /** This many of the next transactions never reach the node (the connection dropped first). */
  dropped = 0;
  /** The token of every transaction sent. */
  tokensSent: string[] = [];

  constructor(stock: Record<string, number>) {
    for (const [id, left] of Object.entries(stock)) this.set(`stock/${id}`, { left, lastSoldAt: null });
  }

  set(key: string, value: unknown): void {
    this.keys.set(key, { value, version: (this.keys.get(key)?.version ?? 0) + 1 });
  }

  stock(id: string): { left: number; version: number } {
    const k = this.keys.get(`stock/${id}`)!;
    return { left: (k.value as StockRecord).left, version: k.version };
  }

  orders(): string[] {
    return [...this.keys.keys()].filter((k) => k.startsWith('orders/'));
  }

  async transactGet(keys: readonly string[]): Promise<TransactGetItem[]> {
    return keys.map((key) => {
      const k = this.keys.get(key);
      return k === undefined || k.value === undefined
        ? { key, found: false, version: String(k?.version ?? 0) }
        : { key, found: true, value: structuredClone(k.value), version: String(k.version) };
    });
  }

  async transact(actions: readonly TransactAction[], options: TransactOptions = {}): Promise<TransactResult> {
    const token = options.token ?? crypto.randomUUID();
    this.tokensSent.push(token);
    if (this.dropped > 0) {
      this.dropped--;
      throw new TesseraError('CONNECTION_FAILED', 'the connection dropped', { maybeApplied: true });
    }
    const seen = this.tokens.get(token);
    if (seen !== undefined) {
      if (seen.actions !== JSON.stringify(actions))
        throw new TesseraError('IDEMPOTENT_PARAMETER_MISMATCH', 'no');
      if (seen.outcome instanceof Error) throw seen.outcome;
      return seen.outcome;
    }
    this.sent.push([...actions]);
    const hook = this.before;
    this.before = undefined;
    await hook?.();
    const outcome = this.judge(actions);
    this.tokens.set(token, { actions: JSON.stringify(actions), outcome });
    if (outcome instanceof Error) throw outcome;
    if (this.lostAnswers > 0) {
      this.lostAnswers--;
      throw new TesseraError('CONNECTION_FAILED', 'the connection dropped', { maybeApplied: true });
    }
    return outcome;
  }

  private judge(actions: readonly TransactAction[]): TransactResult | TesseraError {
    if (this.conflicts > 0) {
      this.conflicts--;
      return canceled(
        actions.map((a, i) => ({ code: i === 0 ? 'TransactionConflict' : 'None', key: a.key })),
      );
    }
    const reasons: Reason[] = actions.map((a) => {
      const k = this.keys.get(a.key);
      const version = String(k?.version ?? 0);
      const c = a.condition;
      const holds =
        c === undefined ||
        ('ifVersion' in c && c.ifVersion === version) ||
        ('ifAbsent' in c && k?.value === undefined) ||
        ('ifExists' in c && k?.value !== undefined);
      return holds
        ? { code: 'None', key: a.key }
        : { code: 'ConditionalCheckFailed', currentVersion: version, key: a.key };
    });
    if (reasons.some((r) => r.code !== 'None')) return canceled(reasons);
    for (const a of actions) if (a.type === 'put') this.set(a.key, a.value);
    this.committed++;
    return {
      versions: Object.fromEntries(actions.map((a) => [a.key, String(this.keys.get(a.key)!.version)])),
    };
  }
}

function canceled(reasons: Reason[]): TesseraError {
  return new TesseraError('TRANSACTION_CANCELED', 'Transaction canceled', {
    httpStatus: 409,
    details: { cancellationReasons: reasons },
  });
}

const NAMES: Record<string, string> = {
  lamp: 'Desk lamp',
  watch: 'Field watch',
  headphones: 'Studio headphones',
};

function order(id: string, lines: Record<string, number>): Order {
  return {
    id,
    cartId: `cart-${id}`,
    lines: Object.entries(lines).map(([productId, quantity]) => ({
      productId,
      name: NAMES[productId] ?? productId,
      quantity,
      priceCents: 100,
    })),
    totalCents: 100,
    createdAt: '2025-01-01T00:00:00.000Z',
    consumed: [`tag-${id}`],
  };
}

const quick = { backoff: async () => {} };

/** The store's error a call threw: its code, message and details. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string; details: unknown }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: string; message: string; details: unknown };
    return { code: e.code, message: e.message, details: e.details };
  }
  throw new Error('expected a refusal');
}

describe('checkout: one transaction over stock and the order', () => {
  it('takes every line’s stock with a put conditioned on the version read, and writes the order with ifAbsent', async () => {
    const fake = new FakeStrong({ lamp: 1, watch: 3 });
    fake.set('stock/watch', { left: 3, lastSoldAt: null }); // version 2
    const placed = await placeOrder(fake, order('o1', { watch: 2, lamp: 1 }), quick);
    expect(placed).toMatchObject({
      kind: 'placed',
      stock: [
        { productId: 'lamp', left: 0 },
        { productId: 'watch', left: 1 },
      ],
    });
    expect(fake.sent).toHaveLength(1);
    expect(fake.sent[0]!.map((a) => [a.type, a.key, a.condition])).toEqual([
      ['put', 'orders/o1', { ifAbsent: true }],
      ['put', 'stock/lamp', { ifVersion: '1' }],
      ['put', 'stock/watch', { ifVersion: '2' }],
    ]);
    expect([fake.stock('lamp'), fake.stock('watch')]).toEqual([
      { left: 0, version: 2 },
      { left: 1, version: 3 },
    ]);
    expect(fake.orders()).toEqual(['orders/o1']);
  });

  it('sells the last one once: the checkout that lost the race is told which item ran out, and keeps nothing half done', async () => {
    const fake = new FakeStrong({ lamp: 1, watch: 3 });
    let rival: Placed | undefined;
    // The rival reads, commits, and only then is our transaction judged: our read is stale.
    fake.before = async () => {
      rival = await placeOrder(fake, order('rival', { lamp: 1 }), quick);
    };
    const lost = await refusal(placeOrder(fake, order('mine', { lamp: 1, watch: 1 }), quick));
    expect(rival?.kind).toBe('placed');
    expect(lost).toEqual({
      code: 'SOLD_OUT',
      message:
        'Sorry, the last Desk lamp was just bought — 0 left. Nothing was ordered and your cart is as it was.',
      details: {
        shortages: [{ productId: 'lamp', name: 'Desk lamp', wanted: 1, left: 0, justBought: true }],
      },
    });
    // Never below zero; the watch our canceled transaction would have taken is untouched.
    expect(fake.stock('lamp')).toEqual({ left: 0, version: 2 });
    expect(fake.stock('watch')).toEqual({ left: 3, version: 1 });
    expect(fake.orders()).toEqual(['orders/rival']);
    expect(fake.committed).toBe(1);
  });

  it('starts over from a fresh read when another buyer took some but enough is left', async () => {
    const fake = new FakeStrong({ watch: 3 });
    fake.before = async () => {
      await placeOrder(fake, order('rival', { watch: 1 }), quick);
    };
    const placed = await placeOrder(fake, order('mine', { watch: 2 }), quick);
    expect(placed.kind).toBe('placed');
    expect(fake.sent.map((t) => t.find((a) => a.key === 'stock/watch')?.condition)).toEqual([
      { ifVersion: '1' },
      { ifVersion: '1' },
      { ifVersion: '2' },
    ]);
    expect(fake.stock('watch')).toEqual({ left: 0, version: 3 });
  });

  it('retries a TransactionConflict with a fresh read, and gives up after a few with nothing applied', async () => {
    const fake = new FakeStrong({ lamp: 1 });
    let waits = 0;
    const counting = { backoff: async () => void waits++ };
    fake.conflicts = 2;
    expect((await placeOrder(fake, order('o1', { lamp: 1 }), counting)).kind).toBe('placed');
    expect([fake.sent.length, waits]).toEqual([3, 2]);

    const busy = new FakeStrong({ lamp: 1 });
    busy.conflicts = 100;
    const gaveUp = await refusal(placeOrder(busy, order('o2', { lamp: 1 }), counting));
    expect(gaveUp.code).toBe('CHECKOUT_CONFLICT');
    expect(busy.sent).toHaveLength(5);
    expect([busy.stock('lamp'), busy.orders()]).toEqual([{ left: 1, version: 1 }, []]);
  });

  it('never places an order twice: a checkout sent again after a lost answer finds the order it placed', async () => {
    const fake = new FakeStrong({ lamp: 1, watch: 3 });
    fake.lostAnswers = 1;
    const o = order('o1', { lamp: 1, watch: 1 });
    const first = await refusal(placeOrder(fake, o, quick));
    expect(first.code).toBe('CONNECTION_FAILED');
    const again = await placeOrder(fake, o, quick);
    expect(again).toEqual({ kind: 'existing', order: o });
    expect([fake.committed, fake.orders(), fake.stock('lamp'), fake.stock('watch')]).toEqual([
      1,
      ['orders/o1'],
      { left: 0, version: 2 },
      { left: 2, version: 2 },
    ]);
  });

  it('sends a transaction again with the same token, so a node that got the first answers with it', async () => {
    const fake = new FakeStrong({ lamp: 1 });
    fake.dropped = 1;
    const o = order('o1', { lamp: 1 });
    expect((await refusal(placeOrder(fake, o, quick))).code).toBe('CONNECTION_FAILED');
    // The store runs it again (through another node): same order, same versions, same token.
    expect((await placeOrder(fake, o, quick)).kind).toBe('placed');
    expect(fake.tokensSent).toHaveLength(2);
    expect(fake.tokensSent[1]).toBe(fake.tokensSent[0]);
    expect([fake.committed, fake.stock('lamp')]).toEqual([1, { left: 0, version: 2 }]);
  });

  it('answers the order another process placed under the same id meanwhile (its ifAbsent failed)', async () => {
    const fake = new FakeStrong({ watch: 3 });
    const o = order('same', { watch: 1 });
    fake.before = async () => {
      await placeOrder(fake, o, quick);
    };
    expect(await placeOrder(fake, o, quick)).toEqual({ kind: 'existing', order: o });
    expect([fake.committed, fake.stock('watch').left]).toEqual([1, 2]);
  });

  it('refuses before any transaction when the stock is short, naming each item', async () => {
    const fake = new FakeStrong({ headphones: 3, lamp: 0 });
    const refused = await refusal(placeOrder(fake, order('o1', { headphones: 4, lamp: 1 }), quick));
    expect(refused.code).toBe('SOLD_OUT');
    expect(refused.message).toBe(
      'Sorry, only 3 Studio headphones left, your cart has 4; Desk lamp is sold out — 0 left. ' +
        'Nothing was ordered and your cart is as it was.',
    );
    expect(fake.sent).toEqual([]);
  });

  it('calls an item sold in the last minutes “just bought”, and a product never stocked sold out', async () => {
    const now = Date.parse('2025-06-01T12:00:00Z');
    const fake = new FakeStrong({});
    fake.set('stock/lamp', { left: 0, lastSoldAt: '2025-06-01T11:59:00Z' });
    fake.set('stock/watch', { left: 1, lastSoldAt: '2025-06-01T09:00:00Z' });
    const refused = await refusal(
      placeOrder(fake, order('o1', { lamp: 1, watch: 2, unicorn: 1 }), { ...quick, now: () => now }),
    );
    expect(
      (refused.details as { shortages: Shortage[] }).shortages.map((s) => [
        s.productId,
        s.left,
        s.justBought,
      ]),
    ).toEqual([
      ['lamp', 0, true],
      ['unicorn', 0, false],
      ['watch', 1, false],
    ]);
  });
});

describe('the words and the token', () => {
  it('names what ran out', () => {
    const s = (over: Partial<Shortage>): Shortage => ({
      productId: 'lamp',
      name: 'Desk lamp',
      wanted: 1,
      left: 0,
      justBought: false,
      ...over,
    });
    expect(shortageMessage([s({ justBought: true })])).toBe(
      'Sorry, the last Desk lamp was just bought — 0 left. Nothing was ordered and your cart is as it was.',
    );
    expect(shortageMessage([s({ wanted: 3, left: 1, justBought: true })])).toBe(
      'Sorry, Desk lamp was just bought: only 1 Desk lamp left, your cart has 3. Nothing was ordered and your cart is as it was.',
    );
  });

  it('makes one token per order, actions and attempt: the same transaction resent is recognised, another is not', () => {
    const put = (version: string): TransactAction[] => [
      { type: 'put', key: 'orders/abc', value: { id: 'abc' }, condition: { ifAbsent: true } },
      {
        type: 'put',
        key: 'stock/lamp',
        value: { left: 0, lastSoldAt: null },
        condition: { ifVersion: version },
      },
    ];
    const token = tokenFor('0123456789abcdef', put('1'), 1);
    expect(token).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(tokenFor('0123456789abcdef', put('1'), 1)).toBe(token);
    expect(tokenFor('0123456789abcdef', put('2'), 1)).not.toBe(token);
    expect(tokenFor('fedcba9876543210', put('1'), 1)).not.toBe(token);
    // After a TransactionConflict the same actions are sent again: a new token, or the node would
    // answer the conflict again.
    expect(tokenFor('0123456789abcdef', put('1'), 2)).not.toBe(token);
  });
});
