/**
 * What an engine hands the conformance suite, and the helpers its parts share. The suite's
 * model of key order is UTF-8 byte order computed with Buffer.compare, independent of the
 * engines' own `compareKeys`.
 */
import { TesseraError } from '@tessera/core';
import type { Namespace, StorageEngine } from '@tessera/server';
import type { Expect } from './test-api.js';

export interface EngineHarness {
  /** A fresh, empty engine, not yet opened. */
  readonly engine: StorageEngine;
  /**
   * A new engine over the same storage, not yet opened, for the "data survives reopen" test.
   * Without it the suite closes and reopens `engine` itself, and expects the data still there.
   */
  reopen?(): Promise<StorageEngine>;
  /** Removes whatever the harness created (a temp dir); called once the engines are closed. */
  cleanup(): Promise<void>;
}

export type EngineFactory = () => Promise<EngineHarness>;

/** Opens a fresh engine, runs `body`, then closes the engine and cleans up, even on failure. */
export async function withEngine(
  makeEngine: EngineFactory,
  body: (engine: StorageEngine, harness: EngineHarness) => Promise<void>,
): Promise<void> {
  const harness = await makeEngine();
  try {
    await harness.engine.open();
    await body(harness.engine, harness);
  } finally {
    await harness.engine.close();
    await harness.cleanup();
  }
}

export function bytes(...values: number[]): Uint8Array {
  return Uint8Array.from(values);
}

export function text(value: string): Uint8Array {
  return new TextEncoder().encode(value);
}

export async function put(
  engine: StorageEngine,
  ns: Namespace,
  key: string,
  value: Uint8Array,
): Promise<void> {
  await engine.batch([{ type: 'put', ns, key, value }]);
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const entry of iterable) out.push(entry);
  return out;
}

/** Plain arrays compare well in failure messages; Uint8Array subclasses would not compare equal. */
export function plainEntries(entries: [string, Uint8Array][]): [string, number[]][] {
  return entries.map(([key, value]) => [key, [...value]]);
}

/** UTF-8 byte order, the order every engine iterates in. */
export function utf8Order(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export async function expectTesseraError(
  expect: Expect,
  promise: Promise<unknown>,
  code: string,
): Promise<TesseraError> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(TesseraError.is(err), `expected a TesseraError ${code}, got ${String(err)}`).toBe(true);
  expect((err as TesseraError).code).toBe(code);
  return err as TesseraError;
}

/** Keys that trip up prefixing, ordering and encodings. */
export const TRICKY_KEYS: readonly string[] = Object.freeze([
  '',
  '\u0000',
  '!',
  '"',
  '/',
  'a',
  'a!',
  'a!b',
  'a"',
  'aa',
  'b',
  'd!x',
  'h!x',
  'm!',
  '0003/cart',
  '~',
  '\u007f',
  'é',
  'e\u0301',
  '中文',
  '\ue000',
  '\uffff',
  '😀',
  '𝄞clef',
]);
