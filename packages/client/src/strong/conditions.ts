/**
 * Versions and conditions of strong keys (docs: /tmp/strong/contract.md, issue 14). A strong key's
 * version is a decimal string: "0" for a key never written, one more after every committed put or
 * delete; a deleted key keeps its version. A write can be made conditional on it: `ifVersion` (HTTP
 * If-Match), `ifAbsent` (If-None-Match: *) and, in a transaction, `ifExists`.
 */
import { TesseraError } from '../errors.js';
import { isRecord } from '../http/call.js';

/** A version as the nodes write it: a non-negative integer in decimal. */
const VERSION = /^[0-9]{1,20}$/;

/** Strong namespaces' names (the nodes' --strong list). */
const NAMESPACE = /^[A-Za-z0-9_.-]{1,64}$/;

/** A transaction action's condition: exactly one of these. */
export type TransactCondition =
  | { readonly ifVersion: string }
  | { readonly ifAbsent: true }
  | { readonly ifExists: true };

/** The condition of a strong put or delete outside a transaction: at most one of the two. */
export interface StrongWriteCondition {
  /** Write only if the key's version is this one (from a read or a write): If-Match. */
  readonly ifVersion?: string | undefined;
  /** Write only if the key has no value (never written, or deleted): If-None-Match: *. */
  readonly ifAbsent?: boolean | undefined;
}

export function isVersion(value: unknown): value is string {
  return typeof value === 'string' && VERSION.test(value);
}

export function checkNamespace(namespace: string): void {
  if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
    throw invalid(
      `A strong namespace is 1 to 64 of A-Z, a-z, 0-9, "_", "." and "-"; got ${JSON.stringify(namespace)}.`,
    );
  }
}

/** The request headers of a condition; none without one. */
export function conditionHeaders(
  condition: StrongWriteCondition,
  key: string,
): Readonly<Record<string, string>> | undefined {
  const { ifVersion, ifAbsent } = condition;
  if (ifVersion !== undefined && ifAbsent === true) {
    throw invalid(`A write of key "${key}" takes ifVersion or ifAbsent, not both.`, key);
  }
  if (ifAbsent !== undefined && typeof ifAbsent !== 'boolean') {
    throw invalid(`ifAbsent is true or false (key "${key}").`, key);
  }
  if (ifAbsent === true) return { 'if-none-match': '*' };
  if (ifVersion === undefined) return undefined;
  return { 'if-match': `"${checkVersion(ifVersion, key)}"` };
}

/** A transaction action's condition, checked, as a fresh object with only its one field. */
export function checkCondition(condition: unknown, key: string, action: number): TransactCondition {
  const problem = (): TesseraError =>
    invalid(
      `Action ${action + 1} (key "${key}"): a condition is exactly one of { ifVersion: "<version>" }, { ifAbsent: true }, { ifExists: true }; got ${describe(condition)}.`,
      key,
    );
  if (!isRecord(condition)) throw problem();
  const fields = Object.keys(condition).filter((name) => condition[name] !== undefined);
  if (fields.length !== 1) throw problem();
  if (fields[0] === 'ifVersion') return { ifVersion: checkVersion(condition.ifVersion, key) };
  if (fields[0] === 'ifAbsent' && condition.ifAbsent === true) return { ifAbsent: true };
  if (fields[0] === 'ifExists' && condition.ifExists === true) return { ifExists: true };
  throw problem();
}

function checkVersion(version: unknown, key: string): string {
  if (isVersion(version)) return version;
  throw invalid(
    `ifVersion is a strong key's version, a decimal string such as "3" (from a read or a write); got ${describe(version)} for key "${key}".`,
    key,
  );
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function invalid(message: string, key?: string): TesseraError {
  return new TesseraError('INVALID_ARGUMENT', message, key === undefined ? {} : { key });
}
