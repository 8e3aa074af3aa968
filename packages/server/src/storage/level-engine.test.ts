/**
 * LevelEngine's batches go to classic-level by two doors (level-engine.ts `writeBatch`): the
 * array form below CHAINED_BATCH_OPS_MIN ops, the chained batch from it. Both store what they are
 * given, last op of a key winning; and a chained batch, which the db registers as an open
 * resource, is released once written, so a node writing for days holds none of them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BatchOp } from './engine.js';
import { CHAINED_BATCH_OPS_MIN, LevelEngine } from './level-engine.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function openEngine(): Promise<LevelEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-level-'));
  dirs.push(dir);
  const engine = new LevelEngine(dir);
  await engine.open();
  return engine;
}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (value: Uint8Array | undefined): string | undefined =>
  value === undefined ? undefined : new TextDecoder().decode(value);

/** The db's resource bookkeeping, counted (abstract-level's attach/detachResource). */
function countResources(engine: LevelEngine): { attached: number; detached: number } {
  const db = (engine as unknown as { db: Record<'attachResource' | 'detachResource', (r: unknown) => void> })
    .db;
  const counts = { attached: 0, detached: 0 };
  const attach = db.attachResource.bind(db);
  const detach = db.detachResource.bind(db);
  db.attachResource = (r) => {
    counts.attached++;
    attach(r);
  };
  db.detachResource = (r) => {
    counts.detached++;
    detach(r);
  };
  return counts;
}

describe('LevelEngine batches', () => {
  it('store puts and deletes in order on both sides of the chained-batch threshold', async () => {
    const engine = await openEngine();
    try {
      for (const size of [1, CHAINED_BATCH_OPS_MIN - 1, CHAINED_BATCH_OPS_MIN, 20]) {
        const ops: BatchOp[] = [];
        for (let i = 0; i < size; i++)
          ops.push({ type: 'put', ns: 'data', key: `${size}/${i}`, value: bytes(`v${i}`) });
        // The last op of a key wins: a put then a delete of the first key, a second put of the last.
        ops.push({ type: 'del', ns: 'data', key: `${size}/0` });
        ops.push({ type: 'put', ns: 'meta', key: `${size}/last`, value: bytes('meta') });
        await engine.batch(ops, { sync: false });
        expect(await engine.get('data', `${size}/0`)).toBeUndefined();
        expect(text(await engine.get('data', `${size}/${size - 1}`))).toBe(
          size === 1 ? undefined : `v${size - 1}`,
        );
        expect(text(await engine.get('meta', `${size}/last`))).toBe('meta');
      }
    } finally {
      await engine.close();
    }
  });

  it('releases every chained batch once it is written', async () => {
    const engine = await openEngine();
    try {
      const counts = countResources(engine);
      for (let round = 0; round < 50; round++) {
        const ops: BatchOp[] = Array.from({ length: CHAINED_BATCH_OPS_MIN + 2 }, (_, i) => ({
          type: 'put',
          ns: 'data',
          key: `${round}/${i}`,
          value: bytes('x'),
        }));
        await engine.batch(ops, { sync: false });
      }
      expect(counts.attached).toBe(50);
      expect(counts.detached).toBe(50);
    } finally {
      await engine.close();
    }
  });
});
