/**
 * Actors: the names that stamp dots and own version-vector entries. A vector entry (actor, n)
 * claims every write of that actor to the key up to n, so an actor may only stamp a key whose
 * every earlier write by it is in the stamping replica's own state. A node id cannot keep that
 * promise: a node whose disk was wiped, whose copy of the key was handed over and dropped, whose
 * tombstone was collected, or that was killed between sending a write and storing it, no longer
 * holds all its writes, and its next entry would claim (and so drop) writes it never saw — the
 * class of bug Riak fixed as KV679.
 *
 * So an actor is `<node>~<incarnation>.<epoch>`: the incarnation is random and changes whenever
 * the node's disk is new or its last stop was not clean (or a local write failed after its
 * fan-out), and the epoch is minted per key, whenever the node's state of the key holds no actor
 * of the current incarnation. Within one incarnation, every write of an actor to its key is in the
 * node's state of that key: it was stamped there under the key's lock, and a state that is
 * dropped takes the actor's entry with it, so the next write mints a new epoch. See
 * docs/consistency.md, "Actors".
 */
import type { NodeId } from './clock.js';
import type { Rng } from './random.js';
import type { KeyState } from './versions.js';

const MARK = '~';
const INCARNATION_CHARS = 8;
const INCARNATION = /^[0-9a-z]{8}$/;

/** A new random incarnation tag: 8 base-36 characters (about 41 bits). */
export function newIncarnation(random: Rng): string {
  let tag = '';
  for (let i = 0; i < INCARNATION_CHARS; i++) tag += Math.floor(random() * 36).toString(36);
  return tag;
}

export function isIncarnation(tag: string): boolean {
  return INCARNATION.test(tag);
}

/** The node an actor belongs to (an actor written before actors had incarnations is a node id). */
export function actorNode(actor: NodeId): NodeId {
  const at = actor.indexOf(MARK);
  return at < 0 ? actor : actor.slice(0, at);
}

/**
 * One incarnation of a node: picks the actor that stamps each write. Pure; the server persists
 * `incarnation` and `epoch` (node/incarnation.ts).
 */
export class ActorLife {
  private readonly prefix: string;

  constructor(
    readonly node: NodeId,
    readonly incarnation: string,
    private lastEpoch = 0,
  ) {
    if (!isIncarnation(incarnation)) throw new RangeError(`bad incarnation tag "${incarnation}"`);
    this.prefix = `${node}${MARK}${incarnation}.`;
  }

  /** The last epoch minted; the next life of this incarnation starts after it. */
  get epoch(): number {
    return this.lastEpoch;
  }

  /** True for actors of this incarnation. */
  owns(actor: NodeId): boolean {
    return actor.startsWith(this.prefix);
  }

  /**
   * The actor for a write to a key whose state on this node is `stored`: this incarnation's
   * actor already in it (the newest epoch, should there be several), else a new epoch.
   */
  actorFor(stored: KeyState): NodeId {
    let best: NodeId | undefined;
    let bestEpoch = -1;
    for (const e of stored.vv) {
      if (!this.owns(e.node)) continue;
      const epoch = Number.parseInt(e.node.slice(this.prefix.length), 36);
      if (epoch > bestEpoch) {
        best = e.node;
        bestEpoch = epoch;
      }
    }
    return best ?? this.mint();
  }

  private mint(): NodeId {
    this.lastEpoch++;
    return `${this.prefix}${this.lastEpoch.toString(36)}`;
  }
}
