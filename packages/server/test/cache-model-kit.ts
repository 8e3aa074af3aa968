/**
 * The model the state-cache test runs against the real ReplicaStore (src/storage/state-cache.test.ts):
 * the operations it draws, the change groups it expects, and an engine that fails armed writes
 * and answers reads late.
 */
import { type CausalContext, encodeState, type KeyState } from '@tessera/core';
import fc from 'fast-check';
import type { BatchOp, StorageEngine } from '../src/storage/engine.js';

export const Q = 4;
export const KEYS = ['a', 'b', 'c', 'd', 'e'];
export const NOW_MS = 1_000;

export type Fail = 'none' | 'before' | 'after';
export type WriteOp =
  | { kind: 'update'; key: string; value: string | null; blind: boolean; fail: Fail }
  | { kind: 'merge'; key: string; actor: string; fail: Fail }
  | { kind: 'drop'; key: string; stale: boolean }
  /** A read starts `wait` ticks after the ops before it (it takes no lock: it can land anywhere). */
  | { kind: 'read'; key: string; wait: number }
  | { kind: 'readEncoded'; key: string; wait: number };
export type SoloOp =
  | { kind: 'dropPartition'; partition: number }
  | { kind: 'collect'; key: string }
  | { kind: 'failingDrop'; key: string }
  /** A new store on the same engine (the node restarted); its key filter's scan awaited or not. */
  | { kind: 'restart'; awaitFilter: boolean };
export type Step = { together: WriteOp[] } | { solo: SoloOp };
/** A change called in a together step, and what it must answer. */
export interface Member {
  readonly op: Extract<WriteOp, { kind: 'update' | 'merge' }>;
  readonly answer: string;
  readonly writes: boolean;
  fails?: boolean;
  armed?: string;
}
/** Changes to one key written together, and the key's state before them. */
export interface Group {
  readonly before: KeyState | undefined;
  readonly members: Member[];
}

export const key = fc.constantFrom(...KEYS);
export const fail = fc.constantFrom<Fail>('none', 'none', 'none', 'before', 'after');
export const writeOp: fc.Arbitrary<WriteOp> = fc.oneof(
  fc.record({
    kind: fc.constant('update' as const),
    key,
    value: fc.option(fc.constantFrom('x', 'yy', 'a longer value'), { nil: null, freq: 4 }),
    blind: fc.boolean(),
    fail,
  }),
  fc.record({ kind: fc.constant('merge' as const), key, actor: fc.constantFrom('r1', 'r2'), fail }),
  fc.record({ kind: fc.constant('drop' as const), key, stale: fc.boolean() }),
  fc.record({ kind: fc.constant('read' as const), key, wait: fc.nat(4) }),
  fc.record({ kind: fc.constant('readEncoded' as const), key, wait: fc.nat(4) }),
);
export const soloOp: fc.Arbitrary<SoloOp> = fc.oneof(
  fc.record({ kind: fc.constant('dropPartition' as const), partition: fc.integer({ min: 0, max: Q - 1 }) }),
  fc.record({ kind: fc.constantFrom('collect' as const, 'failingDrop' as const), key }),
  fc.record({ kind: fc.constant('restart' as const), awaitFilter: fc.boolean() }),
);
export const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ together: fc.array(writeOp, { minLength: 1, maxLength: 4 }) }), weight: 6 },
  { arbitrary: fc.record({ solo: soloOp }), weight: 1 },
);
/** 0: off; 300: one entry at a time; 700: two or three; 1 MiB: everything. */
export const budget = fc.constantFrom(0, 300, 700, 2_000, 1024 * 1024);
/** The key filter's bound: 0 off; 64 bytes saturates it at its first layer; 1 MiB holds everything. */
export const filterBudget = fc.constantFrom(0, 64, 1024 * 1024, 1024 * 1024);

/**
 * The engine under test: a batch that puts an armed state fails (before or after it is applied),
 * deletes of armed data keys fail, and reads answer 0 to 3 ticks late with what they read at once
 * (so a read can answer the state from before a write that completed meanwhile).
 */
export class TrickyEngine implements StorageEngine {
  readonly kind: string;
  /** `<data key> <state hex>` -> when a batch putting it fails. */
  readonly armed = new Map<string, Exclude<Fail, 'none'>>();
  readonly failDeletes = new Set<string>();
  private tick = 0;

  constructor(
    readonly inner: StorageEngine,
    private readonly delays: readonly number[],
  ) {
    this.kind = inner.kind;
  }

  open(): Promise<void> {
    return this.inner.open();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  async get(ns: BatchOp['ns'], k: string): Promise<Uint8Array | undefined> {
    const value = this.inner.get(ns, k);
    await ticks(this.delays[this.tick++ % this.delays.length]!);
    return value;
  }

  async batch(ops: readonly BatchOp[], options?: { sync?: boolean }): Promise<void> {
    const fails = (when: Fail) =>
      ops.some((op) => op.type === 'put' && this.armed.get(`${op.key} ${hex(op.value)}`) === when);
    if (fails('before') || ops.some((op) => op.type === 'del' && this.failDeletes.has(op.key)))
      throw new Error('injected failure before the write');
    await this.inner.batch(ops, options);
    if (fails('after')) throw new Error('injected failure after the write');
  }

  iterate(ns: BatchOp['ns'], range?: { gte?: string; lt?: string; limit?: number }) {
    return this.inner.iterate(ns, range);
  }
}

export async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

export const encoded = (s: KeyState | undefined) =>
  s === undefined ? 'absent' : Buffer.from(encodeState(s)).toString('hex');
export const hex = (b: Uint8Array | undefined) =>
  b === undefined ? 'absent' : Buffer.from(b).toString('hex');

/** The context a client holds after reading `state`. */
export function contextOf(state: KeyState): CausalContext {
  return { vv: state.vv, dots: state.siblings.map((s) => s.dot) };
}
