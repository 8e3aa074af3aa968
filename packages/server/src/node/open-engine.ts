/** Opens the storage engine the config names: LevelDB under the data dir, or memory. */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { StorageEngine } from '../storage/engine.js';
import { checkFormat } from '../storage/format.js';
import { LevelEngine } from '../storage/level-engine.js';
import { MemoryEngine } from '../storage/memory-engine.js';

export async function openEngine(config: Pick<Config, 'storage' | 'dataDir'>): Promise<StorageEngine> {
  if (config.storage === 'memory') {
    const engine = new MemoryEngine();
    await engine.open();
    return engine;
  }
  await mkdir(config.dataDir, { recursive: true });
  const engine = new LevelEngine(join(config.dataDir, 'db'));
  await engine.open();
  // Before anything writes to it: a data dir of a newer format is refused untouched.
  await checkFormat(engine, `The data dir ${config.dataDir}`).catch(async (err: unknown) => {
    await engine.close();
    throw err;
  });
  return engine;
}
