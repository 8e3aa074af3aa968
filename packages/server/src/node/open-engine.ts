/** Opens the storage engine the config names: LevelDB under the data dir, or memory. */
import { mkdir } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config.js';
import {
  CompactionPriority,
  type Lowered,
  lowerCompactionPriority,
  threadIds,
} from '../storage/compaction-priority.js';
import type { StorageEngine } from '../storage/engine.js';
import { checkFormat } from '../storage/format.js';
import { LevelEngine } from '../storage/level-engine.js';
import { MemoryEngine } from '../storage/memory-engine.js';

export interface OpenedEngine {
  readonly engine: StorageEngine;
  /** What became of LevelDB's background thread's priority (undefined: memory, or `compactionNice` 0). */
  readonly compaction?: Lowered;
  /** When it was lowered: what gives it back while LevelDB falls behind (call `check` every second). */
  readonly priority?: CompactionPriority;
}

export async function openEngine(
  config: Pick<Config, 'storage' | 'dataDir' | 'compactionNice'>,
): Promise<OpenedEngine> {
  if (config.storage === 'memory') {
    const engine = new MemoryEngine();
    await engine.open();
    return { engine };
  }
  await mkdir(config.dataDir, { recursive: true });
  const lowering = config.compactionNice > 0;
  const before = lowering ? await threadIds() : undefined;
  const engine = new LevelEngine(join(config.dataDir, 'db'));
  await engine.open();
  // Before anything writes to it: a data dir of a newer format is refused untouched.
  await checkFormat(engine, `The data dir ${config.dataDir}`).catch(async (err: unknown) => {
    await engine.close();
    throw err;
  });
  if (!lowering) return { engine };
  const compaction = await lowerCompactionPriority(before, config.compactionNice, () =>
    engine.startBackgroundWork(),
  );
  if (!compaction.lowered) return { engine, compaction };
  const priority = new CompactionPriority(compaction.threadId, compaction.nice, {
    setPriority,
    level0Files: () => engine.level0Files(),
  });
  return { engine, compaction, priority };
}
