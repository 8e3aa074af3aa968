/**
 * How much of what a run allocates reaches V8's old generation while only young-generation
 * collections (scavenges) run: the measure of a structure that keeps finished requests alive
 * past their time (util/deadlines.ts explains the case that cost a coordinator a full collection
 * every 2 seconds). Garbage that dies young never gets there; garbage something old still points
 * to does, and stays until the next full collection.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

v8.setFlagsFromString('--expose-gc');
type Gc = (options?: { type: 'major' | 'minor' }) => void;
const gc = runInNewContext('gc') as Gc;

const oldSpaceUsedBytes = (): number =>
  v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_used_size ?? 0;

/**
 * Runs `round` `rounds` times with a scavenge every `roundsPerScavenge` rounds and none of the full
 * collections V8 would otherwise schedule in between; answers how many bytes the old generation grew by.
 */
export async function oldSpaceGrowthBytes(
  rounds: number,
  round: (index: number) => void | Promise<void>,
  roundsPerScavenge = 10,
): Promise<number> {
  gc();
  gc();
  const before = oldSpaceUsedBytes();
  for (let i = 0; i < rounds; i++) {
    await round(i);
    if (i % roundsPerScavenge === 0) gc({ type: 'minor' });
  }
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  return oldSpaceUsedBytes() - before;
}
