/**
 * The one check in front of every peer call (a gRPC server interceptor, so every method is covered,
 * those added later too): who is calling, can they prove it, and are they part of the cluster.
 * - Identity: `tessera-node` metadata. With mTLS it must equal the certificate's CN, so a node
 *   cannot claim another's id; with a cluster secret, `tessera-auth` must be a fresh HMAC of it.
 * - Protocol: `tessera-protocol` must be a version this node serves (core protocol-version.ts).
 * - Membership (fence-guard.ts): Join is open to every authenticated node (joining is how a node
 *   becomes a member; a joiner's id must match the member it asks to add), Gossip to every node of
 *   this cluster. Every other call needs a caller that this node's cluster state lists, and whose
 *   data dir is not fenced: removed, left, or superseded under its id (core fencing.ts).
 * A node whose own data dir is fenced refuses every call.
 * A refusal is UNAUTHENTICATED (no valid identity), PROTOCOL_MISMATCH, CLUSTER_MISMATCH,
 * FORBIDDEN (valid, but not a member) or NODE_FENCED.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  type Metadata,
  Metadata as MetadataClass,
  ServerInterceptingCall,
  type ServerInterceptingCallInterface,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import { type ClusterState, ERROR_CODES, protocolRefusal, TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import {
  AUTH_METADATA,
  CLUSTER_METADATA,
  IDENTITY_METADATA,
  NODE_METADATA,
  type PeerServerSecurity,
  PROTOCOL_METADATA,
  peerProof,
} from './credentials.js';
import { membershipRefusal } from './fence-guard.js';
import { CODE_METADATA, DETAILS_METADATA, peerService } from './service.js';
import { toWireError } from './wire-error.js';

/** How far a proof's time may be from this node's clock (peers should run NTP). */
export const PROOF_SKEW_MAX_SECONDS = 300;
const NODE_ID = /^[A-Za-z0-9._-]{1,64}$/;
const OPEN_TO_JOINERS = new Set<string>([peerService.join.path, peerService.gossip.path]);
const REFUSALS_LOGGED_PER_MINUTE = 10;

export interface CallerFacts {
  readonly method: string;
  readonly nodeId: string | undefined;
  readonly proof: string | undefined;
  /** The CN of the certificate the caller presented (mTLS only). */
  readonly certName: string | undefined;
  readonly nowMs: number;
  /** `tessera-protocol`, `tessera-cluster`, `tessera-identity` (absent from older versions). */
  readonly protocol?: string | undefined;
  readonly clusterId?: string | undefined;
  readonly identity?: string | undefined;
}

export interface GuardSettings {
  readonly security: Pick<PeerServerSecurity, 'mtls' | 'clusterSecret'>;
  /** This node's cluster state; undefined while starting (calls then pass to the handler). */
  readonly state: () => ClusterState | undefined;
  /** Why this node itself serves nothing (its data dir is fenced: node/fence.ts), if it is. */
  readonly fenced?: () => TesseraError | undefined;
}

/** Why the call is refused, or undefined to let it through. */
export function refusal(facts: CallerFacts, settings: GuardSettings): TesseraError | undefined {
  const { nodeId } = facts;
  if (nodeId === undefined || !NODE_ID.test(nodeId))
    return new TesseraError('UNAUTHENTICATED', 'Peer calls must name the calling node in tessera-node.');
  const { mtls, clusterSecret } = settings.security;
  if (mtls && facts.certName !== nodeId)
    return new TesseraError(
      'UNAUTHENTICATED',
      `The caller claims node id "${nodeId}" but its certificate is for "${facts.certName ?? '(no CN)'}". Issue each node a certificate whose CN is its node id.`,
    );
  if (clusterSecret !== undefined && !validProof(facts, clusterSecret))
    return new TesseraError(
      'UNAUTHENTICATED',
      'The peer call has no valid cluster-secret proof: check that every node has the same cluster secret and a synchronized clock.',
    );
  const protocol = protocolRefusal(facts.protocol);
  if (protocol !== undefined) return protocol;
  const fenced = settings.fenced?.();
  if (fenced !== undefined) return fenced;
  if (facts.method === peerService.join.path) return undefined;
  const state = settings.state();
  if (state === undefined) return undefined;
  return membershipRefusal({ ...facts, nodeId }, state, OPEN_TO_JOINERS.has(facts.method));
}

function validProof(facts: CallerFacts, secret: string): boolean {
  const proof = facts.proof;
  if (proof === undefined || facts.nodeId === undefined) return false;
  const match = /^v1\.(\d{1,12})\.[0-9a-f]{64}$/.exec(proof);
  if (match === null) return false;
  const seconds = Number(match[1]);
  if (Math.abs(seconds - facts.nowMs / 1000) > PROOF_SKEW_MAX_SECONDS) return false;
  const expected = Buffer.from(peerProof(secret, facts.nodeId, facts.method, seconds));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface PeerGatekeeper {
  /** Why a caller with these facts is refused (logged), or undefined to let it through. */
  admit(facts: CallerFacts): TesseraError | undefined;
  /** Logs a refusal decided elsewhere (rate-limited with the others). */
  refused(error: TesseraError, facts: CallerFacts): void;
}

/**
 * The guard as a check of a caller's facts: why it is refused, or undefined. Refusals are logged,
 * at most REFUSALS_LOGGED_PER_MINUTE a minute. Used by the interceptor below and by the pipe's own
 * framing (pipe-socket-server.ts), whose HELLO carries the same facts.
 */
export function peerGatekeeper(settings: GuardSettings, log: Logger): PeerGatekeeper {
  let windowStartMs = 0;
  let logged = 0;
  return {
    admit: (facts) => {
      const error = refusal(facts, settings);
      if (error !== undefined) refused(error, facts);
      return error;
    },
    refused,
  };
  function refused(error: TesseraError, facts: CallerFacts): void {
    if (facts.nowMs - windowStartMs > 60_000) {
      windowStartMs = facts.nowMs;
      logged = 0;
    }
    if (logged++ < REFUSALS_LOGGED_PER_MINUTE)
      log.warn(
        { code: error.code, caller: facts.nodeId, rpc: facts.method, reason: error.message },
        'peer call refused',
      );
  }
}

/** The guard as a grpc-js server interceptor. */
export function peerGuard(
  settings: GuardSettings,
  log: Logger,
  gatekeeper: PeerGatekeeper = peerGatekeeper(settings, log),
): ServerInterceptor {
  const refuse = (call: ServerInterceptingCallInterface, error: TesseraError, facts: CallerFacts): void => {
    const trailer = new MetadataClass();
    const wire = toWireError(error, facts.method, log);
    trailer.set(CODE_METADATA, wire.code);
    if (wire.details !== undefined) trailer.set(DETAILS_METADATA, wire.details);
    call.sendStatus({ code: ERROR_CODES[error.code].grpc, details: error.message, metadata: trailer });
  };
  return (descriptor, call) => {
    let caller: string | undefined;
    return new ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata: Metadata, pass) => {
            const facts = callerFacts(descriptor.path, metadata, call);
            caller = facts.nodeId;
            const error = gatekeeper.admit(facts);
            if (error === undefined) pass(metadata);
            else refuse(call, error, facts);
          },
          onReceiveMessage: (message: unknown, pass) => {
            const joiner = descriptor.path === peerService.join.path ? joinerId(message) : caller;
            if (joiner === undefined || joiner === caller) {
              pass(message);
              return;
            }
            const error = new TesseraError(
              'FORBIDDEN',
              `Node "${caller}" may only ask to join as itself, not as "${joiner}".`,
            );
            const facts = {
              method: descriptor.path,
              nodeId: caller,
              proof: undefined,
              certName: undefined,
              nowMs: Date.now(),
            };
            gatekeeper.refused(error, facts);
            refuse(call, error, facts);
          },
        });
      },
    });
  };
}

function callerFacts(method: string, metadata: Metadata, call: ServerInterceptingCallInterface): CallerFacts {
  const first = (key: string): string | undefined => {
    const value = metadata.get(key)[0];
    return typeof value === 'string' ? value : undefined;
  };
  const cn = call.getAuthContext().sslPeerCertificate?.subject?.CN;
  return {
    method,
    nodeId: first(NODE_METADATA),
    proof: first(AUTH_METADATA),
    certName: Array.isArray(cn) ? cn[0] : cn,
    nowMs: Date.now(),
    protocol: first(PROTOCOL_METADATA),
    clusterId: first(CLUSTER_METADATA),
    identity: first(IDENTITY_METADATA),
  };
}

/** The node id a Join request asks to add (undefined for an undecodable request: the handler refuses it). */
function joinerId(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || !('member' in message)) return undefined;
  const member = (message as { member?: { nodeId?: unknown } }).member;
  return typeof member?.nodeId === 'string' ? member.nodeId : undefined;
}
