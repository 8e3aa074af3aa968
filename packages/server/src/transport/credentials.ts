/**
 * Every credential of peer traffic is built here (docs/security.md):
 * - plaintext, or mutual TLS where both sides present a certificate signed by the cluster CA and
 *   the server asks for the client's (gRPC channel credentials for calls; the PEMs themselves for
 *   the replication pipe's connection and for the peer port's listener, peer-listener.ts);
 * - the caller's identity on every call, as metadata (and in the pipe's HELLO): `tessera-node` (its node id) and, when the
 *   cluster has a secret, `tessera-auth`, an HMAC of node id, method and time under that secret
 *   (the secret itself never travels); its peer protocol version, and its cluster id and data-dir
 *   identity once it has them (identity fencing).
 * The server side checks them in peer-guard.ts.
 */
import { createHmac } from 'node:crypto';
import {
  type ChannelCredentials,
  type ClientOptions,
  credentials,
  InterceptingCall,
  type Interceptor,
} from '@grpc/grpc-js';
import { PEER_PROTOCOL_VERSION } from '@tessera/core';
import type { Config } from '../config.js';
import { readPem } from '../security/pem.js';
import { pipeMethod } from './service.js';

const PIPE_PATH = pipeMethod.path;

/** Metadata naming the calling node. */
export const NODE_METADATA = 'tessera-node';
/** Metadata proving the caller knows the cluster secret: `v1.<unix seconds>.<hex HMAC-SHA256>`. */
export const AUTH_METADATA = 'tessera-auth';
/** The caller's peer protocol version (core protocol-version.ts), on every call. */
export const PROTOCOL_METADATA = 'tessera-protocol';
/** The cluster id the caller's data dir belongs to, once it has one. */
export const CLUSTER_METADATA = 'tessera-cluster';
/** The caller's data-dir identity, `<generation>.<tag>` (core member-identity.ts). */
export const IDENTITY_METADATA = 'tessera-identity';

/** More metadata for every call, read at each call (the node's cluster id and identity). */
export type PresentedMetadata = () => Readonly<Record<string, string>>;

/** The PEM contents of a node's peer certificate, its key and the cluster CA (mTLS). */
export interface PeerTlsPems {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** What a node needs to call its peers. */
export interface PeerClientSecurity {
  readonly credentials: ChannelCredentials;
  /** Client options: the interceptor that adds the caller's identity to every call. */
  readonly options: ClientOptions;
  /** The same for the replication pipe's own connection (pipe-socket-client.ts). */
  readonly tls?: PeerTlsPems;
  /** The caller's identity as the pipe's HELLO carries it, made afresh for each connection. */
  readonly hello: () => Readonly<Record<string, string>>;
}

/** What a node needs to serve its peers; the guard (peer-guard.ts) is added by the node. */
export interface PeerServerSecurity {
  /** The node's certificate, key and cluster CA, for the listener that serves gRPC and the pipe (mTLS). */
  readonly tls?: PeerTlsPems;
  /** True when callers present certificates the server verified (mTLS). */
  readonly mtls: boolean;
  readonly clusterSecret: string | undefined;
}

export interface PeerSecurity {
  readonly nodeId: string;
  readonly client: PeerClientSecurity;
  readonly server: PeerServerSecurity;
}

/** Loads certificates and keys named in the config; fails at start with the file at fault. */
export function loadPeerSecurity(
  config: Pick<Config, 'nodeId' | 'peerTls' | 'clusterSecret'>,
  presented?: PresentedMetadata,
): PeerSecurity {
  const tls = config.peerTls;
  const pem =
    tls === undefined
      ? undefined
      : {
          ca: readPem(tls.caFile, '--peer-tls-ca'),
          cert: readPem(tls.certFile, '--peer-tls-cert'),
          key: readPem(tls.keyFile, '--peer-tls-key'),
        };
  return {
    nodeId: config.nodeId,
    client: peerClientSecurity(config.nodeId, config.clusterSecret, pem, presented),
    server: {
      ...(pem === undefined ? {} : { tls: pem }),
      mtls: pem !== undefined,
      clusterSecret: config.clusterSecret,
    },
  };
}

/** How a node calls its peers as `nodeId`: over TLS with `pem`, proving `secret` if given. */
export function peerClientSecurity(
  nodeId: string,
  secret: string | undefined,
  pem: PeerTlsPems | undefined,
  presented?: PresentedMetadata,
): PeerClientSecurity {
  return {
    credentials:
      pem === undefined ? credentials.createInsecure() : credentials.createSsl(pem.ca, pem.key, pem.cert),
    options: { interceptors: [identityInterceptor(nodeId, secret, presented)] },
    ...(pem === undefined ? {} : { tls: pem }),
    hello: () => identityEntries(nodeId, secret, presented, PIPE_PATH),
  };
}

/** The HMAC a caller sends to prove it holds the cluster secret, for one method at one time. */
export function peerProof(secret: string, nodeId: string, method: string, unixSeconds: number): string {
  return `v1.${unixSeconds}.${createHmac('sha256', secret)
    .update(`tessera-peer-v1\n${nodeId}\n${method}\n${unixSeconds}`)
    .digest('hex')}`;
}

/**
 * Adds `tessera-node`, `tessera-protocol` (and `tessera-auth` with a secret, and what `presented`
 * gives) to every outgoing call.
 */
export function identityInterceptor(
  nodeId: string,
  secret: string | undefined,
  presented?: PresentedMetadata,
): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start: (metadata, listener, next) => {
        const entries = identityEntries(nodeId, secret, presented, options.method_definition.path);
        for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
        next(metadata, listener);
      },
    });
}

/** The caller's identity for one call of `method`: what a call's metadata and the pipe's HELLO carry. */
export function identityEntries(
  nodeId: string,
  secret: string | undefined,
  presented: PresentedMetadata | undefined,
  method: string,
): Record<string, string> {
  const entries: Record<string, string> = {
    [NODE_METADATA]: nodeId,
    [PROTOCOL_METADATA]: String(PEER_PROTOCOL_VERSION),
    ...presented?.(),
  };
  if (secret !== undefined) {
    const now = Math.floor(Date.now() / 1000);
    entries[AUTH_METADATA] = peerProof(secret, nodeId, method, now);
  }
  return entries;
}
