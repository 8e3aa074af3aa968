/**
 * What a strong key holds: a register with a version, an optional value (JSON text) and, while a
 * transaction holds the key, that transaction's intent. Each change through consensus replaces
 * the whole register, so an acceptor's accepted register is the key's full state.
 */

/** A transaction's pending change of one key: applied if its record commits, dropped otherwise. */
export interface Intent {
  /** The transaction's id; its record is the strong key `txnRecordKey(txn)`. */
  readonly txn: string;
  readonly op: 'put' | 'delete' | 'check';
  /** JSON text, for `put`. */
  readonly value?: string;
  /** After this time (the transaction coordinator's clock) anyone may cancel the transaction. */
  readonly expiresAtMs: number;
}

export interface Register {
  /** 0 before the first write; +1 per committed put, and per delete of a present value. */
  readonly version: number;
  /** JSON text; absent when the key has no value (never written, or deleted). */
  readonly value?: string;
  readonly intent?: Intent;
}

export const EMPTY_REGISTER: Register = { version: 0 };

/** The register without its intent. */
export function withoutIntent(register: Register): Register {
  return register.value === undefined
    ? { version: register.version }
    : { version: register.version, value: register.value };
}

/** The register after applying `op` to it (a committed change): a new version unless nothing changed. */
export function applyOp(register: Register, op: Intent['op'], value?: string): Register {
  const base = withoutIntent(register);
  if (op === 'check') return base;
  if (op === 'delete') {
    return base.value === undefined ? base : { version: base.version + 1 };
  }
  if (value === undefined) throw new RangeError('a put needs a value');
  return { version: base.version + 1, value };
}

/** The register once `intent`'s transaction committed: the intent applied, and gone. */
export function rollForward(register: Register): Register {
  const { intent } = register;
  if (intent === undefined) return register;
  return applyOp(register, intent.op, intent.value);
}
