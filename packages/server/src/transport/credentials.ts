/**
 * Every credential of peer traffic is built here (docs/security.md):
 * - channel and server credentials: plaintext, or mutual TLS where both sides present a
 *   certificate signed by the cluster CA and the server asks for the client's;
 * - the caller's identity on every call, as metadata: `tessera-node` (its node id) and, when the
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
  ServerCredentials,
} from '@grpc/grpc-js';
import { PEER_PROTOCOL_VERSION } from '@tessera/core';
import type { Config } from '../config.js';
import { readPem } from '../security/pem.js';

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

/** What a node needs to call its peers. */
export interface PeerClientSecurity {
  readonly credentials: ChannelCredentials;
  /** Client options: the interceptor that adds the caller's identity to every call. */
  readonly options: ClientOptions;
}

/** What a node needs to serve its peers; the guard (peer-guard.ts) is added by the node. */
export interface PeerServerSecurity {
  readonly credentials: ServerCredentials;
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
  const channel =
    pem === undefined ? credentials.createInsecure() : credentials.createSsl(pem.ca, pem.key, pem.cert);
  const server =
    pem === undefined
      ? ServerCredentials.createInsecure()
      : ServerCredentials.createSsl(pem.ca, [{ cert_chain: pem.cert, private_key: pem.key }], true);
  return {
    nodeId: config.nodeId,
    client: {
      credentials: channel,
      options: { interceptors: [identityInterceptor(config.nodeId, config.clusterSecret, presented)] },
    },
    server: { credentials: server, mtls: pem !== undefined, clusterSecret: config.clusterSecret },
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
        metadata.set(NODE_METADATA, nodeId);
        metadata.set(PROTOCOL_METADATA, String(PEER_PROTOCOL_VERSION));
        for (const [key, value] of Object.entries(presented?.() ?? {})) metadata.set(key, value);
        if (secret !== undefined) {
          const now = Math.floor(Date.now() / 1000);
          metadata.set(AUTH_METADATA, peerProof(secret, nodeId, options.method_definition.path, now));
        }
        next(metadata, listener);
      },
    });
}
