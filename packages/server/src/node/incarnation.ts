/**
 * This node's incarnation (core actors.ts): the random tag in its actor ids, and the last epoch it
 * minted. Persisted with a clean-stop flag. A start on a new data dir, or after a stop that was not
 * clean (kill -9, a crash, power loss), begins a new incarnation: the old one may have sent writes
 * to other replicas that its own disk never stored, so its actors can no longer vouch for their keys.
 * A clean stop keeps the incarnation, so a rolling restart adds no vector entries.
 */
import { randomInt } from 'node:crypto';
import { ActorLife, isIncarnation, type NodeId, newIncarnation, type Rng } from '@tessera/core';
import type { StorageEngine } from '../storage/engine.js';

const KEY = 'incarnation';

interface Persisted {
  readonly tag: string;
  readonly epoch: number;
  readonly clean: boolean;
}

export interface IncarnationOptions {
  readonly node: NodeId;
  /** Draws the tag; defaults to crypto randomness. */
  readonly random?: Rng;
}

export class Incarnation {
  private constructor(
    private readonly engine: StorageEngine,
    private readonly random: Rng,
    private current: ActorLife,
    /** True when this start found no incarnation: a new (or wiped) data dir. */
    readonly newDataDir: boolean,
  ) {}

  static async open(engine: StorageEngine, options: IncarnationOptions): Promise<Incarnation> {
    const random = options.random ?? cryptoRandom;
    const last = decode(await engine.get('meta', KEY));
    const life =
      last?.clean === true
        ? new ActorLife(options.node, last.tag, last.epoch)
        : new ActorLife(options.node, newIncarnation(random));
    const incarnation = new Incarnation(engine, random, life, last === undefined);
    await incarnation.persist(false);
    return incarnation;
  }

  /** The actor source the coordinator stamps with. */
  get actors(): ActorLife {
    return this.current;
  }

  /** The incarnation tag, for status and logs. */
  get tag(): string {
    return this.current.incarnation;
  }

  /**
   * Starts a new incarnation now: a write was sent to other replicas but not stored here, so the
   * current actors no longer hold all their writes. `actors` is the new one before this returns
   * (so a caller under a key's lock stamps no later write with the old one); the promise settles
   * once it is persisted.
   */
  async renew(): Promise<void> {
    this.current = new ActorLife(this.current.node, newIncarnation(this.random));
    await this.persist(false);
  }

  /** Marks the stop clean; call after every write of this life is on disk, before closing it. */
  closeCleanly(): Promise<void> {
    return this.persist(true);
  }

  private persist(clean: boolean): Promise<void> {
    const value: Persisted = { tag: this.current.incarnation, epoch: this.current.epoch, clean };
    return this.engine.batch(
      [{ type: 'put', ns: 'meta', key: KEY, value: new TextEncoder().encode(JSON.stringify(value)) }],
      { sync: true },
    );
  }
}

function decode(bytes: Uint8Array | undefined): Persisted | undefined {
  if (bytes === undefined) return undefined;
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as Partial<Persisted>;
    if (typeof v.tag !== 'string' || !isIncarnation(v.tag)) return undefined;
    if (typeof v.epoch !== 'number' || !Number.isSafeInteger(v.epoch) || v.epoch < 0) return undefined;
    return { tag: v.tag, epoch: v.epoch, clean: v.clean === true };
  } catch {
    return undefined; // unreadable: start a new incarnation, the safe choice
  }
}

const cryptoRandom: Rng = () => randomInt(2 ** 32) / 2 ** 32;
