/** Values and request bodies of an exact serialized size. */
import type { Rng } from '@tessera/core';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** The smallest value: the empty JSON string `""`. */
export const VALUE_BYTES_MIN = 2;

/** A JSON string value whose serialized form is exactly `valueBytes` bytes (quotes included). */
export function makeValue(valueBytes: number, rng: Rng): string {
  if (!Number.isInteger(valueBytes) || valueBytes < VALUE_BYTES_MIN) {
    throw new RangeError(`value size must be a whole number >= ${VALUE_BYTES_MIN}, got ${valueBytes}`);
  }
  let text = '';
  for (let i = 0; i < valueBytes - 2; i++) text += ALPHABET[Math.floor(rng() * ALPHABET.length)];
  return JSON.stringify(text);
}

/** How many distinct values a benchmark's writes rotate through. */
export const DISTINCT_VALUES = 16;

/** A few distinct values to rotate through, so a read-modify-write really changes the value. */
export function makeValues(valueBytes: number, count: number, rng: Rng): string[] {
  return Array.from({ length: count }, () => makeValue(valueBytes, rng));
}

/** The PUT body `{"value":…,"context":…}` from an already serialized value. */
export function putBody(serializedValue: string, context?: string): string {
  return context === undefined
    ? `{"value":${serializedValue}}`
    : `{"value":${serializedValue},"context":${JSON.stringify(context)}}`;
}
