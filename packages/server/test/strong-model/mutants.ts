/**
 * Mutants of the strong-key protocol, switched on by test-only hooks (src is untouched): each
 * breaks one rule the design relies on, and the model test must find a counterexample for each.
 */
import {
  type AcceptorRecord,
  type ClusterState,
  type NodeId,
  type StrongReply,
  type StrongRequest,
  withoutIntent,
} from '@tessera/core';
import type { StrongAcceptor } from '../../src/strong/acceptor.js';
import { adoptPartition } from '../../src/strong/adoption.js';
import type { AcceptorRecords } from '../../src/strong/records.js';
import type { Hooks } from './node.js';

/**
 * (a) An acceptor that does not keep its promises: it answers every prepare it is asked (refusing
 * only for view, move or rebuild reasons), and stores no promise, so a proposer with a lower
 * ballot may still have its accept taken after a higher one prepared.
 */
function forgetfulAcceptor(real: StrongAcceptor, records: AcceptorRecords): Pick<StrongAcceptor, 'handle'> {
  return {
    async handle(request: StrongRequest): Promise<StrongReply> {
      const reply = await real.handle(request);
      if (request.kind !== 'prepare' || reply.kind !== 'prepare') return reply;
      let kept: AcceptorRecord = {};
      await records.adopt(request.key, (mine) => {
        kept = mine ?? {};
        // Forget the promise just given: only an accept raises this record's ballot now.
        const promised = kept.accepted?.ballot;
        return {
          ...(promised === undefined ? {} : { promised }),
          ...(kept.accepted ? { accepted: kept.accepted } : {}),
        };
      });
      return { kind: 'prepare', reply: kept.accepted ? { ok: true, accepted: kept.accepted } : { ok: true } };
    },
  };
}

/** (b) A new owner that adopts a gained partition from one old primary instead of a majority. */
const adoptFromOne: typeof adoptPartition = (deps, partition, nextRingVersion, replicas) => {
  const source = replicas.find((node) => node !== deps.self);
  const one = source === undefined ? [deps.self] : [deps.self, source];
  return adoptPartition(deps, partition, nextRingVersion, one);
};

/**
 * (d) Dirty reads: a get (and so a snapshot) takes a key's pending intent as if its transaction
 * had committed, instead of asking the transaction's record.
 */
function dirtyReads(real: Parameters<NonNullable<Hooks['keys']>>[0]): ReturnType<NonNullable<Hooks['keys']>> {
  return {
    async get(key: string, deadlineMs: number) {
      const { register } = await real.proposer.change(key, () => ({ result: undefined }), deadlineMs);
      const { intent } = register;
      if (intent === undefined || intent.op === 'check') return withoutIntent(register);
      if (intent.op === 'delete')
        return { version: register.version + (register.value === undefined ? 0 : 1) };
      return {
        version: register.version + 1,
        ...(intent.value === undefined ? {} : { value: intent.value }),
      };
    },
    write: (...args) => real.keys.write(...args),
  };
}

export const MUTANTS: Readonly<Record<string, Hooks>> = {
  'acceptor that forgets its promises': { acceptor: forgetfulAcceptor },
  'adoption from one old primary': { adopt: adoptFromOne },
  'wiped node votes without rebuilding': { rebuildAfterWipe: false },
  'gets read uncommitted intents': { keys: dirtyReads },
};

/**
 * (e) WipeRecovery as it was before the model test found the bug: a wiped node rebuilds only if
 * it owns partitions of the current ring, so a joining node wiped after it confirmed its adopted
 * partitions (and so never adopts them again) came back as an owner with nothing and voted.
 */
export const JOINER_FORGETS: Hooks = {
  rebuildAfterWipe: (view: ClusterState, self: NodeId) => view.ring.owners.includes(self),
};
