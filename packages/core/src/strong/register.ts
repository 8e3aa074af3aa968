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
  /**
   * The ids of the last writes that gave the register a new version, newest last (at most
   * OPS_REMEMBERED): the last one made `version`, the one before `version - 1`, and so on. A write
   * whose consensus round ended in doubt (some accepts lost) looks for its id here when it tries
   * again, so that it neither applies twice nor reports a write that did apply as failed.
   */
  readonly ops?: readonly string[];
}

/** Write ids a register remembers. */
export const OPS_REMEMBERED = 8;

export const EMPTY_REGISTER: Register = { version: 0 };

/** The register without its intent. */
export function withoutIntent(register: Register): Register {
  const { intent: _, ...rest } = register;
  return rest;
}

/**
 * The register after applying `op` to it (a committed change): a new version unless nothing
 * changed, with `opId` remembered as the write that made it.
 */
export function applyOp(register: Register, op: Intent['op'], value?: string, opId?: string): Register {
  const base = withoutIntent(register);
  if (op === 'check') return base;
  if (op === 'delete' && base.value === undefined) return base;
  if (op === 'put' && value === undefined) throw new RangeError('a put needs a value');
  const ops = opId === undefined ? [] : [...(base.ops ?? []), opId].slice(-OPS_REMEMBERED);
  return {
    version: base.version + 1,
    ...(op === 'put' ? { value } : {}),
    ...(ops.length === 0 ? {} : { ops }),
  };
}

/** The version write `opId` gave the register, if it is among the writes it remembers. */
export function versionOfOp(register: Register, opId: string): number | undefined {
  const ops = register.ops ?? [];
  const at = ops.lastIndexOf(opId);
  return at < 0 ? undefined : register.version - (ops.length - 1 - at);
}

/** The register once `intent`'s transaction committed: the intent applied (under its id), and gone. */
export function rollForward(register: Register): Register {
  const { intent } = register;
  if (intent === undefined) return register;
  return applyOp(register, intent.op, intent.value, intent.txn);
}
