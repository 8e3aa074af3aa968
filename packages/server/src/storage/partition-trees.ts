/**
 * The Merkle tree of each partition (core `merkle.ts`), kept up to date on every change and built
 * lazily, a group of MERKLE_FANOUT buckets (1/32 of the partition) at a time, the first time a
 * partition's tree is asked for.
 *
 * Building must not race with writes: a group is scanned only while no change to one of its keys
 * is in flight, and changes to it that arrive during the scan wait for the scan (a short wait: one
 * group is a thirty-second of a partition). A change to a group not built yet leaves the tree
 * alone: the group's scan, which comes later, sees it. Memory: MERKLE_TREE_BYTES (8,456 bytes) per
 * partition asked for, so at most Q of them (541 KiB for Q = 64).
 */
import { type KeyState, MERKLE_BUCKETS, MERKLE_FANOUT, MerkleTree, treeDigest } from '@tessera/core';

/** The keys of buckets `first` (inclusive) to `end` (exclusive) of a partition, with their stored bytes. */
export type BucketScan = (
  partition: number,
  first: number,
  end: number,
) => AsyncIterable<[string, KeyState, number]>;

/** What a partition holds, counted while its tree is built and kept up to date after. */
export interface StoredTally {
  /** Live keys (at least one sibling). */
  keys: number;
  tombstones: number;
  /** Bytes of the stored keys and their encoded states (before the engine's own overhead). */
  bytes: number;
}

/** A change's stored sizes: undefined where the key is absent. */
export interface ChangeBytes {
  readonly before: number | undefined;
  readonly after: number | undefined;
}

const GROUPS = MERKLE_BUCKETS / MERKLE_FANOUT;

interface Entry {
  readonly tree: MerkleTree;
  /** built[g] = 1 once the buckets of group g have been scanned into the tree. */
  readonly built: Uint8Array;
  readonly ready: Promise<MerkleTree>;
  readonly tally: StoredTally;
  /** True once every group is built: `tally` counts the whole partition. */
  counted: boolean;
}

/** A group of buckets of a partition as one number. */
function slotOf(partition: number, group: number): number {
  return partition * GROUPS + group;
}

function groupOf(bucket: number): number {
  return Math.floor(bucket / MERKLE_FANOUT);
}

export class PartitionTrees {
  private readonly entries = new Map<number, Entry>();
  /**
   * Changes in flight per slot, indexed by slot (grown to the highest slot used: 32 per
   * partition). Counts in place, not a Map that every write would add to and delete from.
   */
  private inflight = new Int32Array(GROUPS * 64);
  /** Resolves when the slot's in-flight changes are done; set while a scan waits for them. */
  private readonly drains = new Map<number, () => void>();
  /** Settles when the slot's scan is over; set while a scan runs. */
  private readonly scans = new Map<number, Promise<void>>();

  constructor(private readonly scanBuckets: BucketScan) {}

  /** The partition's tree, built on first use. Rejects if the build fails (the next call retries). */
  tree(partition: number): Promise<MerkleTree> {
    let entry = this.entries.get(partition);
    if (entry === undefined) {
      const tree = new MerkleTree();
      const built = new Uint8Array(GROUPS);
      const tally: StoredTally = { keys: 0, tombstones: 0, bytes: 0 };
      const ready = this.build(partition, tree, built, tally).then((t) => {
        entry!.counted = true;
        return t;
      });
      entry = { tree, built, ready, tally, counted: false };
      this.entries.set(partition, entry);
      ready.catch(() => {
        if (this.entries.get(partition)?.ready === ready) this.entries.delete(partition);
      });
    }
    return entry.ready;
  }

  /** Number of partitions whose tree is held (built or being built). */
  get size(): number {
    return this.entries.size;
  }

  /** What the partitions counted so far hold (summed), and how many partitions that is. */
  tally(): StoredTally & { partitionsCounted: number } {
    const sum = { keys: 0, tombstones: 0, bytes: 0, partitionsCounted: 0 };
    for (const entry of this.entries.values()) {
      if (!entry.counted) continue;
      sum.keys += entry.tally.keys;
      sum.tombstones += entry.tally.tombstones;
      sum.bytes += entry.tally.bytes;
      sum.partitionsCounted++;
    }
    return sum;
  }

  /**
   * Call before changing a key of (partition, bucket), and the returned function once the change
   * is committed or abandoned. Waits while the bucket's group is being scanned.
   */
  async enter(partition: number, bucket: number): Promise<() => void> {
    const slot = slotOf(partition, groupOf(bucket));
    for (let scan = this.scans.get(slot); scan !== undefined; scan = this.scans.get(slot)) await scan;
    return this.entered(slot);
  }

  /** `enter` without waiting: the release function, or undefined while the bucket's group is being scanned. */
  enterNow(partition: number, bucket: number): (() => void) | undefined {
    const slot = slotOf(partition, groupOf(bucket));
    return this.scans.has(slot) ? undefined : this.entered(slot);
  }

  private entered(slot: number): () => void {
    if (slot >= this.inflight.length) this.growTo(slot);
    this.inflight[slot]!++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.inflight[slot]! === 0 && this.drains.size > 0) this.drains.get(slot)?.();
    };
  }

  private growTo(slot: number): void {
    let length = this.inflight.length;
    while (length <= slot) length *= 2;
    const grown = new Int32Array(length);
    grown.set(this.inflight);
    this.inflight = grown;
  }

  /** Records a committed change of `key` (between `enter` and its release). */
  changed(
    partition: number,
    bucket: number,
    key: string,
    before: KeyState | undefined,
    after: KeyState | undefined,
    bytes: ChangeBytes,
  ): void {
    const entry = this.entries.get(partition);
    if (entry === undefined || entry.built[groupOf(bucket)] !== 1) return;
    entry.tree.update(key, treeDigest(before), treeDigest(after), bucket);
    if (before !== undefined && bytes.before !== undefined) count(entry.tally, key, before, bytes.before, -1);
    if (after !== undefined && bytes.after !== undefined) count(entry.tally, key, after, bytes.after, 1);
  }

  private async build(
    partition: number,
    tree: MerkleTree,
    built: Uint8Array,
    tally: StoredTally,
  ): Promise<MerkleTree> {
    if (await this.markedEmpty(partition, built)) return tree;
    for (let group = 0; group < GROUPS; group++) {
      const slot = slotOf(partition, group);
      let finish!: () => void;
      this.scans.set(
        slot,
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
      );
      try {
        await this.drained(slot);
        const first = group * MERKLE_FANOUT;
        for await (const [key, state, bytes] of this.scanBuckets(partition, first, first + MERKLE_FANOUT)) {
          tree.update(key, undefined, treeDigest(state));
          count(tally, key, state, bytes, 1);
        }
        built[group] = 1;
      } finally {
        this.scans.delete(slot);
        finish();
      }
    }
    return tree;
  }

  /**
   * Marks every group of a partition that holds no key built, in one scan instead of GROUPS (a new
   * node has 64 partitions: 2,048 scans, a third of a second of CPU, at each start). Every group is
   * held while it looks, so no change slips between the look and the marks.
   */
  private async markedEmpty(partition: number, built: Uint8Array): Promise<boolean> {
    const slots = Array.from({ length: GROUPS }, (_, group) => slotOf(partition, group));
    const finishes: (() => void)[] = [];
    for (const slot of slots)
      this.scans.set(
        slot,
        new Promise<void>((resolve) => {
          finishes.push(resolve);
        }),
      );
    try {
      await Promise.all(slots.map((slot) => this.drained(slot)));
      for await (const _ of this.scanBuckets(partition, 0, MERKLE_BUCKETS)) return false;
      built.fill(1);
      return true;
    } finally {
      for (const slot of slots) this.scans.delete(slot);
      for (const finish of finishes) finish();
    }
  }

  private drained(slot: number): Promise<void> {
    if ((this.inflight[slot] ?? 0) === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drains.set(slot, () => {
        this.drains.delete(slot);
        resolve();
      });
    });
  }
}

/** Adds (sign 1) or takes away (-1) one stored key from a tally. */
function count(tally: StoredTally, key: string, state: KeyState, bytes: number, sign: 1 | -1): void {
  if (state.siblings.length === 0) tally.tombstones += sign;
  else tally.keys += sign;
  tally.bytes += sign * (bytes + Buffer.byteLength(key));
}
