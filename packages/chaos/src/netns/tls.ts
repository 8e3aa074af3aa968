/**
 * TLS for nodes on their own addresses, made with `tessera certs` (docs/security.md): one CA, a
 * certificate per node whose subject alternative names are that node's address (its CN is its
 * node id, as mTLS between peers requires), a client token, an admin token and a cluster secret.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from './command.js';

export interface TlsNode {
  readonly id: string;
  /** The address clients and peers reach it at (its certificate's SAN). */
  readonly address: string;
}

export class ClusterTls {
  private constructor(
    readonly dir: string,
    /** PEM of the CA, for clients. */
    readonly caPem: string,
    /** The admin token: it opens admin routes and client routes alike. */
    readonly adminToken: string,
  ) {}

  /** Writes the CA, tokens and a certificate per node into `dir` (kept if there already). */
  static async create(dir: string, cliPath: string, nodes: readonly TlsNode[]): Promise<ClusterTls> {
    const certs = (node: TlsNode): Promise<string> =>
      run(process.execPath, [
        cliPath,
        'certs',
        '--dir',
        dir,
        '--nodes',
        node.id,
        '--hosts',
        node.address,
        '--days',
        '2',
        '--tokens',
      ]);
    // The first makes the CA and the tokens; the others only sign with it.
    const [first, ...rest] = nodes;
    if (first !== undefined) await certs(first);
    await Promise.all(rest.map(certs));
    const [caPem, adminToken] = await Promise.all([
      readFile(join(dir, 'ca.pem'), 'utf8'),
      readFile(join(dir, 'admin.token'), 'utf8'),
    ]);
    return new ClusterTls(dir, caPem, adminToken.trim());
  }

  get caFile(): string {
    return join(this.dir, 'ca.pem');
  }

  /** `tessera start` flags: HTTPS and peer mTLS with its certificate, tokens and the cluster secret. */
  startArgs(nodeId: string): string[] {
    const cert = join(this.dir, `${nodeId}.pem`);
    const key = join(this.dir, `${nodeId}-key.pem`);
    return [
      '--http-tls-cert',
      cert,
      '--http-tls-key',
      key,
      '--peer-tls-cert',
      cert,
      '--peer-tls-key',
      key,
      '--peer-tls-ca',
      this.caFile,
      '--token-file',
      join(this.dir, 'client.token'),
      '--admin-token-file',
      join(this.dir, 'admin.token'),
      '--cluster-secret-file',
      join(this.dir, 'cluster.secret'),
    ];
  }
}
