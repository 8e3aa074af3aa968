/**
 * The peer messages of strong keys, as JSON bytes inside the `Strong` RPC. Peer data enters
 * through `decodeStrongRequest` / `decodeStrongReply` only: each checks every field and throws
 * BAD_REQUEST (a request) or a RangeError (a reply, which the caller maps) on anything else.
 */
import { TesseraError } from '../errors.js';
import type { AcceptorRecord, AcceptReply, PrepareReply } from './acceptor.js';
import type { Ballot } from './ballot.js';
import { type Intent, OPS_REMEMBERED, type Register } from './register.js';

/** What the proposer believes the key's acceptors are; an acceptor that sees otherwise refuses. */
export interface StrongView {
  readonly ringVersion: number;
  readonly replicas: readonly string[];
}

export type StrongRequest =
  | { readonly kind: 'prepare'; readonly key: string; readonly ballot: Ballot; readonly view: StrongView }
  | {
      readonly kind: 'accept';
      readonly key: string;
      readonly ballot: Ballot;
      readonly register: Register;
      readonly view: StrongView;
    }
  | {
      /**
       * Drop this node's record of a finished transaction (one whose intents are all settled), so
       * that records do not pile up. Refused unless the record is a transaction's and final.
       */
      readonly kind: 'forget';
      readonly key: string;
    }
  | {
      /** A new owner's pull of a partition's records during a ring change (the source freezes it). */
      readonly kind: 'pull';
      readonly partition: number;
      readonly nextRingVersion: number;
      readonly afterKey?: string;
      readonly keysMax: number;
      /** A wiped node rebuilding its records from every other primary: no ring change needed. */
      readonly recover?: boolean;
    };

export interface KeyRecord {
  readonly key: string;
  readonly record: AcceptorRecord;
}

export type RefusalReason = 'view' | 'moving' | 'recovering';

export type StrongReply =
  | { readonly kind: 'prepare'; readonly reply: PrepareReply }
  | { readonly kind: 'accept'; readonly reply: AcceptReply }
  | { readonly kind: 'refused'; readonly reason: RefusalReason; readonly ringVersion: number }
  | { readonly kind: 'pull'; readonly records: readonly KeyRecord[]; readonly done: boolean }
  | { readonly kind: 'forget'; readonly forgotten: boolean };

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeStrong(message: StrongRequest | StrongReply): Uint8Array {
  return encoder.encode(JSON.stringify(message));
}

type Obj = Record<string, unknown>;

function fail(what: string): never {
  throw new TesseraError('BAD_REQUEST', `A strong-key peer message has a malformed ${what}.`);
}

function obj(v: unknown, what: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(what);
  return v as Obj;
}

function str(v: unknown, what: string, bytesMax = 4096): string {
  if (typeof v !== 'string' || v.length > bytesMax) fail(what);
  return v;
}

function int(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(what);
  return v;
}

function ballot(v: unknown): Ballot {
  const o = obj(v, 'ballot');
  return { round: int(o.round, 'ballot round'), proposer: str(o.proposer, 'ballot proposer', 256) };
}

function intent(v: unknown): Intent {
  const o = obj(v, 'intent');
  const op = o.op;
  if (op !== 'put' && op !== 'delete' && op !== 'check') fail('intent op');
  const base: Intent = {
    txn: str(o.txn, 'intent txn', 256),
    op,
    expiresAtMs: int(o.expiresAtMs, 'intent expiry'),
  };
  return o.value === undefined ? base : { ...base, value: str(o.value, 'intent value', 1 << 24) };
}

function register(v: unknown): Register {
  const o = obj(v, 'register');
  const version = int(o.version, 'register version');
  const value = o.value === undefined ? undefined : str(o.value, 'register value', 1 << 24);
  const held = o.intent === undefined ? undefined : intent(o.intent);
  let ops: string[] | undefined;
  if (o.ops !== undefined) {
    if (!Array.isArray(o.ops) || o.ops.length > OPS_REMEMBERED) fail('register ops');
    ops = o.ops.map((id) => str(id, 'register op', 256));
  }
  return {
    version,
    ...(value === undefined ? {} : { value }),
    ...(held === undefined ? {} : { intent: held }),
    ...(ops === undefined ? {} : { ops }),
  };
}

function record(v: unknown): AcceptorRecord {
  const o = obj(v, 'record');
  const promised = o.promised === undefined ? undefined : ballot(o.promised);
  let accepted: AcceptorRecord['accepted'];
  if (o.accepted !== undefined) {
    const a = obj(o.accepted, 'accepted');
    accepted = { ballot: ballot(a.ballot), register: register(a.register) };
  }
  return {
    ...(promised === undefined ? {} : { promised }),
    ...(accepted === undefined ? {} : { accepted }),
  };
}

function view(v: unknown): StrongView {
  const o = obj(v, 'view');
  if (!Array.isArray(o.replicas) || o.replicas.length > 16) fail('view replicas');
  return {
    ringVersion: int(o.ringVersion, 'view ring version'),
    replicas: o.replicas.map((r) => str(r, 'view replica', 256)),
  };
}

function parse(bytes: Uint8Array): Obj {
  try {
    return obj(JSON.parse(decoder.decode(bytes)), 'message');
  } catch (error) {
    if (error instanceof TesseraError) throw error;
    return fail('message (not UTF-8 JSON)');
  }
}

/** Decodes and checks a strong request from a peer; BAD_REQUEST on anything malformed. */
export function decodeStrongRequest(bytes: Uint8Array): StrongRequest {
  const o = parse(bytes);
  if (o.kind === 'prepare') {
    return { kind: 'prepare', key: str(o.key, 'key'), ballot: ballot(o.ballot), view: view(o.view) };
  }
  if (o.kind === 'accept') {
    return {
      kind: 'accept',
      key: str(o.key, 'key'),
      ballot: ballot(o.ballot),
      register: register(o.register),
      view: view(o.view),
    };
  }
  if (o.kind === 'forget') return { kind: 'forget', key: str(o.key, 'key') };
  if (o.kind === 'pull') {
    const afterKey = o.afterKey === undefined ? undefined : str(o.afterKey, 'after key');
    return {
      kind: 'pull',
      partition: int(o.partition, 'partition'),
      nextRingVersion: int(o.nextRingVersion, 'next ring version'),
      keysMax: Math.min(int(o.keysMax, 'keys max'), 1024),
      ...(afterKey === undefined ? {} : { afterKey }),
      ...(o.recover === true ? { recover: true } : {}),
    };
  }
  return fail('kind');
}

function prepareReply(v: unknown): PrepareReply {
  const o = obj(v, 'prepare reply');
  if (o.ok === true) {
    if (o.accepted === undefined) return { ok: true };
    const r = record({ accepted: o.accepted });
    return r.accepted === undefined ? { ok: true } : { ok: true, accepted: r.accepted };
  }
  return { ok: false, promised: ballot(o.promised) };
}

function acceptReply(v: unknown): AcceptReply {
  const o = obj(v, 'accept reply');
  return o.ok === true ? { ok: true } : { ok: false, promised: ballot(o.promised) };
}

/** Decodes and checks a peer's strong reply; BAD_REQUEST on anything malformed. */
export function decodeStrongReply(bytes: Uint8Array): StrongReply {
  const o = parse(bytes);
  switch (o.kind) {
    case 'prepare':
      return { kind: 'prepare', reply: prepareReply(o.reply) };
    case 'accept':
      return { kind: 'accept', reply: acceptReply(o.reply) };
    case 'refused': {
      const reason = o.reason;
      if (reason !== 'view' && reason !== 'moving' && reason !== 'recovering') fail('refusal');
      return { kind: 'refused', reason, ringVersion: int(o.ringVersion, 'ring version') };
    }
    case 'forget':
      return { kind: 'forget', forgotten: o.forgotten === true };
    case 'pull': {
      if (!Array.isArray(o.records) || o.records.length > 1024) fail('records');
      const records = o.records.map((r) => {
        const e = obj(r, 'record entry');
        return { key: str(e.key, 'record key'), record: record(e.record) };
      });
      return { kind: 'pull', records, done: o.done === true };
    }
    default:
      return fail('reply kind');
  }
}

/** A stored acceptor record (what this node wrote itself; checked all the same). */
export function decodeAcceptorRecord(bytes: Uint8Array): AcceptorRecord {
  return record(parse(bytes));
}
