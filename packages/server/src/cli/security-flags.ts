/** The TLS flags of `tessera start` as config fields (secrets are read by security/secrets.ts). */
import { TesseraError } from '@tessera/core';
import type { ConfigInput } from '../config.js';

export interface SecurityFlagValues {
  readonly 'http-tls-cert'?: string | undefined;
  readonly 'http-tls-key'?: string | undefined;
  readonly 'http-tls-ca'?: string | undefined;
  readonly 'peer-tls-cert'?: string | undefined;
  readonly 'peer-tls-key'?: string | undefined;
  readonly 'peer-tls-ca'?: string | undefined;
  readonly insecure?: boolean | undefined;
}

export function securityFlags(v: SecurityFlagValues): Partial<ConfigInput> {
  const out: Partial<ConfigInput> = {};
  const http = [v['http-tls-cert'], v['http-tls-key']];
  if (http.some((f) => f !== undefined) || v['http-tls-ca'] !== undefined) {
    const [certFile, keyFile] = both(http, '--http-tls-cert and --http-tls-key');
    out.httpTls = {
      certFile,
      keyFile,
      ...(v['http-tls-ca'] === undefined ? {} : { caFile: v['http-tls-ca'] }),
    };
  }
  const peer = [v['peer-tls-cert'], v['peer-tls-key'], v['peer-tls-ca']];
  if (peer.some((f) => f !== undefined)) {
    if (peer.some((f) => f === undefined))
      throw new TesseraError(
        'BAD_REQUEST',
        'Peer mTLS needs all of --peer-tls-cert, --peer-tls-key and --peer-tls-ca (see docs/security.md).',
      );
    out.peerTls = { certFile: peer[0]!, keyFile: peer[1]!, caFile: peer[2]! };
  }
  if (v.insecure !== undefined) out.insecure = v.insecure;
  return out;
}

function both(files: (string | undefined)[], what: string): [string, string] {
  const [a, b] = files;
  if (a === undefined || b === undefined)
    throw new TesseraError('BAD_REQUEST', `HTTP TLS needs both ${what} (see docs/security.md).`);
  return [a, b];
}
