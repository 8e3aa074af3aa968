/** `tessera cluster up`: K node processes on this machine for development; Ctrl-C stops them all. */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TesseraError } from '@tessera/core';
import { ensureCerts } from './certs.js';
import { cliCommand } from './invocation.js';
import { LocalNode, localNodeSpecs } from './local-cluster.js';

const NODES_MAX = 32;
/** The strong namespaces `cluster up` declares unless told otherwise (`--strong ''` for none). */
export const DEFAULT_STRONG = 'stock,orders,accounts';

export async function runClusterUp(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      nodes: { type: 'string', default: '3' },
      dir: { type: 'string', default: '.tessera/cluster' },
      'http-port': { type: 'string', default: '7000' },
      'peer-port': { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      certs: { type: 'string' },
      // Strong namespaces of the local cluster (docs/transactions.md); the demo store and the
      // client README use these.
      strong: { type: 'string', default: DEFAULT_STRONG },
    },
    strict: true,
  });
  const nodes = Number(values.nodes);
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > NODES_MAX) {
    throw new TesseraError('BAD_REQUEST', `--nodes must be a whole number from 1 to ${NODES_MAX}.`);
  }
  const httpPort = Number(values['http-port']);
  const peerPort = values['peer-port'] === undefined ? httpPort + 1000 : Number(values['peer-port']);
  const dir = resolve(values.dir);
  // With fewer than 3 nodes the default N=3 cannot be met; size N, R, W to the cluster.
  const sized = nodes < 3 ? ['--n', String(nodes), '--r', '1', '--w', '1'] : [];
  const extraArgs = values.strong === '' ? sized : [...sized, '--strong', values.strong];
  const certs = values.certs === undefined ? undefined : resolve(values.certs);
  if (certs !== undefined) {
    const ids = Array.from({ length: nodes }, (_, i) => `n${i}`);
    const hosts = [...new Set([values.host, '127.0.0.1', 'localhost'])];
    await ensureCerts({ dir: certs, nodes: ids, hosts, days: 365, tokens: true });
  }
  const specs = localNodeSpecs({
    nodes,
    dir,
    host: values.host,
    httpPort,
    peerPort,
    extraArgs,
    ...(certs === undefined ? {} : { perNode: (id: string) => secureNodeArgs(certs, id) }),
  });
  const running: LocalNode[] = [];
  const stopAll = async (): Promise<void> => {
    await Promise.all(running.map((n) => n.stop()));
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stopAll().then(() => process.exit(0)));

  out(`Starting ${nodes} Tessera node(s); data and logs in ${dir}\n`);
  for (const spec of specs) {
    const node = new LocalNode(spec);
    running.push(node);
    try {
      await node.start();
    } catch (err) {
      out(`\n${err instanceof Error ? err.message : String(err)}\n`);
      await stopAll();
      return 1;
    }
    out(
      `  node ${spec.nodeId} ready  http ${node.url}  peer ${node.peerAddress}  pid ${node.pid}  log ${node.logPath}\n`,
    );
  }
  out(
    certs === undefined
      ? usage(running[0]!.url, running.length, values.strong === DEFAULT_STRONG)
      : secureUsage(running[0]!.url, certs),
  );
  await new Promise(() => {});
  return 0;
}

function out(text: string): void {
  process.stdout.write(text);
}

function usage(url: string, nodes: number, strong: boolean): string {
  return `
Cluster is up (${nodes} node${nodes === 1 ? '' : 's'}). Try it:

  # write a value; two writes without a context become two siblings
  curl -s -X PUT ${url}/v1/kv/cart-42 -H 'content-type: application/json' -d '{"value":["apple"]}'
  curl -s -X PUT ${url}/v1/kv/cart-42 -H 'content-type: application/json' -d '{"value":["pear"]}'

  # read it: both versions come back, with one context that covers them
  curl -s ${url}/v1/kv/cart-42

  # resolve: write the merged value with that context; the siblings are replaced
  curl -s -X PUT ${url}/v1/kv/cart-42 -H 'content-type: application/json' \\
       -d '{"value":["apple","pear"],"context":"<context from the read>"}'

${strong ? strongUsage(url) : ''}  # who holds the key, and the cluster as this node sees it
  curl -s ${url}/v1/preference-list/cart-42
  ${cliCommand()} admin status --node ${url}

Press Ctrl-C to stop the cluster (data stays in the data dirs; run the same command to resume).
`;
}

function strongUsage(url: string): string {
  return `  # strong keys (namespaces ${DEFAULT_STRONG}): a version, conditional writes, transactions
  curl -s -X PUT ${url}/v1/kv/stock%2Flamp -H 'content-type: application/json' -H 'If-None-Match: *' -d '{"value":3}'
  curl -s -X POST ${url}/v1/transactions -H 'content-type: application/json' -d '{"actions":[
       {"type":"put","key":"stock/lamp","value":2,"condition":{"ifVersion":"1"}},
       {"type":"put","key":"orders/1","value":{"lamp":1},"condition":{"ifAbsent":true}}]}'

`;
}

/** TLS for HTTP and peers, tokens and the cluster secret, from a `tessera certs --tokens` directory. */
export function secureNodeArgs(certs: string, id: string): { args: string[]; caFile: string } {
  const file = (name: string): string => join(certs, name);
  return {
    caFile: file('ca.pem'),
    args: [
      ...['--http-tls-cert', file(`${id}.pem`), '--http-tls-key', file(`${id}-key.pem`)],
      ...['--peer-tls-cert', file(`${id}.pem`), '--peer-tls-key', file(`${id}-key.pem`)],
      ...['--peer-tls-ca', file('ca.pem')],
      ...['--token-file', file('client.token'), '--admin-token-file', file('admin.token')],
      ...['--cluster-secret-file', file('cluster.secret')],
    ],
  };
}

function secureUsage(url: string, certs: string): string {
  return `
Cluster is up with TLS (HTTP and mutual TLS between peers), tokens and a cluster secret. Try it:

  export TESSERA_CA=${join(certs, 'ca.pem')}
  TOKEN=$(cat ${join(certs, 'client.token')})
  curl -s --cacert $TESSERA_CA -H "Authorization: Bearer $TOKEN" -X PUT ${url}/v1/kv/cart-42 \\
       -H 'content-type: application/json' -d '{"value":["apple"]}'
  curl -s --cacert $TESSERA_CA -H "Authorization: Bearer $TOKEN" ${url}/v1/kv/cart-42

  # admin calls need the admin token
  ${cliCommand()} admin status --node ${url} --ca $TESSERA_CA --token-file ${join(certs, 'admin.token')}

See docs/security.md. Press Ctrl-C to stop the cluster.
`;
}
