/**
 * The proposer of the per-key consensus (CASPaxos): a change of a strong key is one round of
 * prepare (phase 1) and accept (phase 2) among the key's primary replicas, each needing a majority
 * of them. `decide` sees the key's current register (the one accepted at the highest ballot among
 * the promises) and returns the next one, or none for a read, which is accepted unchanged so that a
 * read is linearizable too. Rounds that lose to another proposer retry with a higher ballot after a
 * jittered pause, until the deadline.
 */
import {
  type Ballot,
  ballotAbove,
  type ClusterState,
  currentRegister,
  EMPTY_REGISTER,
  type NodeId,
  type PrepareReply,
  type Register,
  type StrongReply,
  type StrongRequest,
  TesseraError,
} from '@tessera/core';
import type { Logger } from '../logger.js';
import { majorityOf, type Placement, placementOf } from './placement.js';

/** Sends one strong message to a replica (this node's own acceptor included). */
export type StrongSend = (node: NodeId, request: StrongRequest, timeoutMs: number) => Promise<StrongReply>;

export interface ProposerDeps {
  readonly self: NodeId;
  readonly n: number;
  readonly state: () => ClusterState;
  readonly send: StrongSend;
  readonly now: () => number;
  readonly random: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly log: Logger;
  /** Longest wait for one phase's answers. */
  readonly phaseTimeoutMs: number;
}

export interface Decision<T> {
  /** The register to accept; absent to accept the current one unchanged (a read). */
  readonly next?: Register;
  readonly result: T;
}

/** Attempts of one change at most, whatever the deadline. */
const ATTEMPTS_MAX = 64;
const BACKOFF_BASE_MS = 4;
const BACKOFF_MAX_MS = 200;

type Outcome =
  | { readonly ok: true; readonly replies: StrongReply[] }
  | { readonly ok: false; readonly why: string };

export class Proposer {
  private readonly nonce = Math.floor(Math.random() * 0xffffffff).toString(16);
  private sequence = 0;
  /** The highest round seen in any answer, so the next ballot starts above it. */
  private floor: Ballot | undefined;

  constructor(private readonly deps: ProposerDeps) {}

  async change<T>(
    key: string,
    decide: (current: Register) => Decision<T>,
    deadlineMs: number,
  ): Promise<{ register: Register; result: T }> {
    let why = 'no answer';
    for (let attempt = 0; attempt < ATTEMPTS_MAX; attempt++) {
      if (attempt > 0) {
        const pauseMs =
          Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempt, 6)) * this.deps.random();
        if (this.deps.now() + pauseMs >= deadlineMs) break;
        await this.deps.sleep(pauseMs);
      }
      const placement = placementOf(this.deps.state(), key, this.deps.n);
      if (placement.movingTo !== undefined) {
        why = `its partition ${placement.partition} is moving to ring ${placement.movingTo}`;
        continue;
      }
      const round = await this.round(key, placement, decide, deadlineMs);
      if (round.ok) return round.value;
      why = round.why;
    }
    throw new TesseraError(
      'STRONG_UNAVAILABLE',
      `Strong key "${key.slice(0, 200)}" could not be changed before the deadline: ${why}. Retry; if it persists, check that a majority of its primary replicas is up and reachable.`,
    );
  }

  /** Sends `request` (no vote: a forget) to the key's primaries; answers how many did it. */
  async tell(key: string, request: StrongRequest): Promise<number> {
    const { replicas } = placementOf(this.deps.state(), key, this.deps.n);
    const replies = await Promise.allSettled(
      replicas.map((node) => this.deps.send(node, request, this.deps.phaseTimeoutMs)),
    );
    return replies.filter((r) => r.status === 'fulfilled' && r.value.kind === 'forget' && r.value.forgotten)
      .length;
  }

  private async round<T>(
    key: string,
    placement: Placement,
    decide: (current: Register) => Decision<T>,
    deadlineMs: number,
  ): Promise<{ ok: true; value: { register: Register; result: T } } | { ok: false; why: string }> {
    const view = { ringVersion: placement.ringVersion, replicas: placement.replicas };
    const ballot = ballotAbove([this.floor], `${this.deps.self}.${this.nonce}.${++this.sequence}`);
    this.floor = ballot;
    const promised = await this.phase(placement, { kind: 'prepare', key, ballot, view }, deadlineMs);
    if (!promised.ok) return promised;
    const promises = promised.replies.flatMap((r) => (r.kind === 'prepare' && r.reply.ok ? [r.reply] : []));
    for (const p of promises) if (p.ok && p.accepted !== undefined) this.raiseFloor(p.accepted.ballot);
    const current = currentRegister(promises as PrepareReply[], EMPTY_REGISTER);
    const decision = decide(current);
    const register = decision.next ?? current;
    const accepted = await this.phase(placement, { kind: 'accept', key, ballot, register, view }, deadlineMs);
    if (!accepted.ok) return accepted;
    return { ok: true, value: { register, result: decision.result } };
  }

  /** Sends `request` to every replica; resolves once a majority said yes, or a majority cannot. */
  private phase(placement: Placement, request: StrongRequest, deadlineMs: number): Promise<Outcome> {
    const { replicas } = placement;
    const needed = majorityOf(replicas);
    const timeoutMs = Math.max(1, Math.min(this.deps.phaseTimeoutMs, deadlineMs - this.deps.now()));
    return new Promise((resolve) => {
      const yes: StrongReply[] = [];
      const no: string[] = [];
      const settle = () => {
        if (yes.length >= needed) resolve({ ok: true, replies: yes });
        else if (no.length > replicas.length - needed) {
          resolve({
            ok: false,
            why: `${yes.length} of ${replicas.length} replicas agreed, ${needed} needed (${no.join('; ')})`,
          });
        }
      };
      for (const node of replicas) {
        this.deps.send(node, request, timeoutMs).then(
          (reply) => {
            if (this.granted(reply)) yes.push(reply);
            else no.push(`${node}: ${this.refusalOf(reply)}`);
            settle();
          },
          (error: unknown) => {
            no.push(`${node}: ${TesseraError.is(error) ? error.code : 'failed'}`);
            settle();
          },
        );
      }
    });
  }

  private granted(reply: StrongReply): boolean {
    if (reply.kind === 'prepare' || reply.kind === 'accept') {
      if (reply.reply.ok) return true;
      this.raiseFloor(reply.reply.promised);
    }
    return false;
  }

  private raiseFloor(ballot: Ballot): void {
    if (this.floor === undefined || ballot.round > this.floor.round) this.floor = ballot;
  }

  private refusalOf(reply: StrongReply): string {
    if (reply.kind === 'refused') return `refused (${reply.reason}, ring ${reply.ringVersion})`;
    return 'a higher ballot';
  }
}
