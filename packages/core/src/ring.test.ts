import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraError } from './errors.js';
import {
  checksum64,
  checksum64Text,
  hex32,
  keyPosition,
  murmur3,
  murmur3Text,
  murmur3TextPair,
  utf8,
} from './hash.js';
import {
  claim,
  createRing,
  PARTITION_COUNT_MAX,
  partitionCounts,
  partitionOf,
  partitionsOf,
  preferenceList,
  primariesOf,
  type Ring,
  release,
  ringMembers,
} from './ring.js';

const nodeIdsArb = (max: number) =>
  fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: max });

/** A ring grown by joins from createRing(Q, first), with the replication factor n used for claims. */
const scenarioArb = (qs: readonly number[], maxNodes: number) =>
  fc.record({ q: fc.constantFrom(...qs), n: fc.integer({ min: 1, max: 5 }), nodes: nodeIdsArb(maxNodes) });

function grow(
  q: number,
  n: number,
  nodes: readonly string[],
  onJoin?: (before: Ring, after: Ring) => void,
): Ring {
  let ring = createRing(q, nodes[0]!);
  for (const node of nodes.slice(1)) {
    const next = claim(ring, node, n);
    onJoin?.(ring, next);
    ring = next;
  }
  return ring;
}

function expectBalanced(ring: Ring): void {
  const counts = [...partitionCounts(ring).values()];
  expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  expect(counts.reduce((a, b) => a + b, 0)).toBe(ring.partitionCount);
}

const changed = (a: Ring, b: Ring): number[] => a.owners.flatMap((o, p) => (o === b.owners[p] ? [] : [p]));

function checkJoins(q: number, n: number, nodes: readonly string[]): void {
  grow(q, n, nodes, (before, after) => {
    const joiner = ringMembers(after).find((m) => !ringMembers(before).includes(m))!;
    const moved = changed(before, after);
    expect(moved.length).toBe(Math.floor(q / (ringMembers(before).length + 1)));
    for (const p of moved) expect(after.owners[p]).toBe(joiner);
    expect(after.version).toBe(before.version + 1);
    expectBalanced(after);
  });
}

describe('claim', () => {
  it('moves exactly floor(Q / members) partitions, all to the new node, and keeps balance (Q = 8, 64)', () => {
    fc.assert(
      fc.property(scenarioArb([8, 64], 8), ({ q, n, nodes }) => checkJoins(q, n, nodes)),
      { numRuns: 150 },
    );
  });

  it('does the same with Q = 256', () => {
    fc.assert(
      fc.property(scenarioArb([256], 5), ({ q, n, nodes }) => checkJoins(q, n, nodes)),
      { numRuns: 30 },
    );
  });

  it('is a no-op for a node that already owns partitions', () => {
    const ring = grow(64, 3, ['a', 'b', 'c']);
    expect(claim(ring, 'b', 3)).toBe(ring);
  });
});

describe('release', () => {
  it("moves exactly the leaving node's partitions to the others and keeps balance", () => {
    const arb = fc.tuple(scenarioArb([8, 64], 7), fc.nat());
    fc.assert(
      fc.property(arb, ([{ q, n, nodes }, pick]) => {
        let ring = grow(q, n, nodes);
        // Leave one by one, down to the last node.
        while (ringMembers(ring).length > 1) {
          const members = ringMembers(ring);
          const leaving = members[pick % members.length]!;
          const next = release(ring, leaving, n);
          expect(changed(ring, next)).toEqual(partitionsOf(ring, leaving));
          expect(ringMembers(next)).toEqual(members.filter((m) => m !== leaving));
          expect(next.version).toBe(ring.version + 1);
          expectBalanced(next);
          ring = next;
        }
        const last = ringMembers(ring)[0]!;
        expect(() => release(ring, last, n)).toThrow(TesseraError);
        expect(release(ring, 'not-a-member', n)).toBe(ring);
      }),
      { numRuns: 100 },
    );
  });
});

describe('preferenceList', () => {
  it('walks the ring from the partition and names every member exactly once', () => {
    const arb = fc.tuple(scenarioArb([8, 64], 8), fc.nat());
    fc.assert(
      fc.property(arb, ([{ q, n, nodes }, at]) => {
        const ring = grow(q, n, nodes);
        const p = at % q;
        const list = preferenceList(ring, p);
        expect([...list].sort()).toEqual(ringMembers(ring));
        expect(new Set(list).size).toBe(list.length);
        expect(list[0]).toBe(ring.owners[p]);
        // Reference walk: owners in ring order from p, first occurrences.
        const walk = Array.from({ length: q }, (_, i) => ring.owners[(p + i) % q]!);
        expect(list).toEqual(walk.filter((o, i) => walk.indexOf(o) === i));
        const replicas = list.slice(0, Math.min(n, list.length));
        expect(new Set(replicas).size).toBe(replicas.length);
      }),
    );
  });
});

describe('partitionOf and keyPosition', () => {
  it('is a deterministic partition in [0, Q), nested consistently across partition counts', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.integer({ min: 1, max: PARTITION_COUNT_MAX }),
        (key, q) => {
          const p = partitionOf(q, key);
          expect(Number.isInteger(p) && p >= 0 && p < q).toBe(true);
          expect(partitionOf(q, key)).toBe(p);
          expect(p).toBe(Math.floor((keyPosition(key) * q) / 2 ** 32));
          expect(partitionOf(64, key)).toBe(Math.floor(partitionOf(4096, key) / 64));
        },
      ),
    );
  });

  it('spreads 10,000 random keys over all 64 partitions', () => {
    const keys = new Set(
      fc.sample(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }), { numRuns: 12_000, seed: 7 }),
    );
    const counts = new Array<number>(64).fill(0);
    for (const key of [...keys].slice(0, 10_000)) counts[partitionOf(64, key)]! += 1;
    expect(Math.min(...counts)).toBeGreaterThan(0);
    // Binomial(10000, 1/64): mean 156, sd 12.4; half or one and a half of the mean is far outside.
    expect(Math.min(...counts)).toBeGreaterThan(78);
    expect(Math.max(...counts)).toBeLessThan(234);
  });

  it('rejects partition counts outside 1..PARTITION_COUNT_MAX', () => {
    for (const q of [0, -1, 1.5, PARTITION_COUNT_MAX + 1, Number.NaN]) {
      expect(() => createRing(q, 'a')).toThrow(TesseraError);
    }
    expect(createRing(1, 'a').owners).toEqual(['a']);
  });
});

describe('murmur3 (MurmurHash3_x86_32)', () => {
  it('matches the reference known answers', () => {
    expect(murmur3(utf8(''), 0)).toBe(0);
    expect(murmur3(utf8('hello'), 0)).toBe(0x248bfa47);
    expect(murmur3(utf8('The quick brown fox jumps over the lazy dog'), 0)).toBe(0x2e4ff723);
    // Seeds and every tail length (from the SMHasher reference implementation).
    expect(murmur3(utf8(''), 1)).toBe(0x514e28b7);
    expect(murmur3(utf8(''), 0xffffffff)).toBe(0x81f16f39);
    expect(murmur3(new Uint8Array(4), 0)).toBe(0x2362f9de);
    expect(murmur3(utf8('a'), 0x9747b28c)).toBe(0x7fa09ea6);
    expect(murmur3(utf8('aa'), 0x9747b28c)).toBe(0x5d211726);
    expect(murmur3(utf8('aaa'), 0x9747b28c)).toBe(0x283e0130);
    expect(murmur3(utf8('aaaa'), 0x9747b28c)).toBe(0x5a97808a);
    expect(murmur3(utf8('Hello, world!'), 0x9747b28c)).toBe(0x24884cba);
  });

  it('hashes text exactly as its UTF-8 bytes (murmur3Text), lone surrogates as U+FFFD like TextEncoder', () => {
    // Keys place data on the ring: a different hash would move every stored key.
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ maxLength: 40 }),
      fc
        .array(fc.integer({ min: 0xd7f0, max: 0xe010 }), { maxLength: 8 })
        .map((codes) => String.fromCharCode(...codes)),
    );
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (s, seed, other) => {
        expect(murmur3Text(s, seed)).toBe(murmur3(utf8(s), seed));
        expect(murmur3TextPair(s, seed, other)).toEqual([murmur3(utf8(s), seed), murmur3(utf8(s), other)]);
        expect(checksum64Text(s)).toBe(checksum64(utf8(s)));
      }),
      { numRuns: 2000 },
    );
    expect(murmur3Text('hello')).toBe(0x248bfa47);
    // Long texts (past the shared scratch buffer) and a short one after them hash the same way.
    for (const long of ['k'.repeat(5000), '\u{1f600}'.repeat(3000), `${'é'.repeat(4095)}x`]) {
      expect(murmur3Text(long, 3)).toBe(murmur3(utf8(long), 3));
      expect(checksum64Text(long)).toBe(checksum64(utf8(long)));
      expect(murmur3Text('hello')).toBe(0x248bfa47);
    }
    expect(murmur3Text('\u{1f600}\ud800x\udc00', 7)).toBe(murmur3(utf8('\u{1f600}\ud800x\udc00'), 7));
  });

  it('writes a 32-bit integer as 8 lowercase hex digits (hex32)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), (n) => {
        expect(hex32(n)).toBe(n.toString(16).padStart(8, '0'));
      }),
      { numRuns: 2000 },
    );
    expect([hex32(0), hex32(0xffffffff), hex32(0xa)]).toEqual(['00000000', 'ffffffff', '0000000a']);
  });

  it('returns unsigned 32-bit integers; checksum64 is 16 hex characters', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(), (bytes, seed) => {
        const h = murmur3(bytes, seed);
        expect(Number.isInteger(h) && h >= 0 && h < 2 ** 32).toBe(true);
        expect(checksum64(bytes)).toMatch(/^[0-9a-f]{16}$/);
      }),
    );
  });
});

describe('primariesOf', () => {
  it('answers the first n of a preference list, the same frozen list for the same list and n', () => {
    let ring = createRing(16, 'a');
    ring = claim(ring, 'b', 3);
    ring = claim(ring, 'c', 3);
    for (let p = 0; p < 16; p++) {
      const preference = preferenceList(ring, p);
      for (const n of [1, 2, 3, 5]) {
        const primaries = primariesOf(preference, n);
        expect(primaries).toEqual(preference.slice(0, n));
        expect(Object.isFrozen(primaries)).toBe(true);
        expect(primariesOf(preference, n)).toBe(primaries);
      }
    }
  });
});
