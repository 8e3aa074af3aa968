/**
 * Random cases for the model test, from a seeded generator (the same seed, the same case): batches
 * of puts and deletes over keys that trip up prefixing, ordering and encodings, and ranges to read.
 */
import { between, type Rng } from '@tessera/core';
import type { BatchOp, KeyRange, Namespace } from '@tessera/server';
import { TRICKY_KEYS } from './harness.js';

export interface ModelCase {
  readonly batches: readonly (readonly BatchOp[])[];
  readonly ranges: readonly KeyRange[];
}

const NAMESPACES: readonly Namespace[] = ['data', 'hints', 'meta'];
const SMALL_ALPHABET: readonly string[] = ['a', 'b', '!', '"', 'é', '😀'];
const SURROGATES = 0x800;

function pickOf<T>(random: Rng, items: readonly T[]): T {
  return items[between(random, 0, items.length - 1)]!;
}

/** Any Unicode scalar value (no lone surrogates: they have no UTF-8 form), half of them ASCII. */
function codePoint(random: Rng): string {
  if (random() < 0.5) return String.fromCodePoint(between(random, 0, 0x7f));
  const n = between(random, 0, 0x10ffff - SURROGATES);
  return String.fromCodePoint(n < 0xd800 ? n : n + SURROGATES);
}

function randomKey(random: Rng): string {
  const kind = between(random, 0, 2);
  if (kind === 0) return pickOf(random, TRICKY_KEYS);
  if (kind === 1) return Array.from({ length: between(random, 0, 6) }, () => codePoint(random)).join('');
  return Array.from({ length: between(random, 0, 4) }, () => pickOf(random, SMALL_ALPHABET)).join('');
}

function randomOp(random: Rng): BatchOp {
  const ns = pickOf(random, NAMESPACES);
  const key = randomKey(random);
  if (random() < 0.25) return { type: 'del', ns, key };
  const value = Uint8Array.from({ length: between(random, 0, 24) }, () => between(random, 0, 255));
  return { type: 'put', ns, key, value };
}

function randomRange(random: Rng): KeyRange {
  return {
    ...(random() < 0.5 ? { gte: randomKey(random) } : {}),
    ...(random() < 0.5 ? { lt: randomKey(random) } : {}),
    ...(random() < 0.5 ? { limit: between(random, 0, 20) } : {}),
  };
}

export function randomCase(random: Rng): ModelCase {
  const batches = Array.from({ length: between(random, 0, 12) }, () =>
    Array.from({ length: between(random, 1, 12) }, () => randomOp(random)),
  );
  const ranges = Array.from({ length: between(random, 0, 4) }, () => randomRange(random));
  return { batches, ranges };
}
