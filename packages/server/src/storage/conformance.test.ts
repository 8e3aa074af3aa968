import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storageConformance } from '@tessera/server/conformance';
import { describe, expect, it } from 'vitest';
import { LevelEngine } from './level-engine.js';
import { MemoryEngine } from './memory-engine.js';

const vitest = { describe, it, expect };

storageConformance(
  'memory',
  async () => {
    const engine = new MemoryEngine();
    return { engine, reopen: async () => engine, cleanup: async () => {} };
  },
  vitest,
);

storageConformance(
  'leveldb',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tessera-conformance-'));
    return {
      engine: new LevelEngine(dir),
      reopen: async () => new LevelEngine(dir),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
  vitest,
);
