#!/usr/bin/env node
/** `tessera`: start a node, run a local cluster, or talk to a node's admin API. */
import { readFileSync } from 'node:fs';
import { TesseraError } from '@tessera/core';
import { cliCommand, DOCS_URL } from './invocation.js';

function usage(cmd: string): string {
  const pad = ' '.repeat(cmd.length);
  return `Usage:
  ${cmd} start --node-id ID --http HOST:PORT --peer HOST:PORT --data-dir DIR [--seed HOST:PORT]...
  ${pad}       [--n 3 --r 2 --w 2 --partitions 64] [--storage leveldb|memory] [--durability process|fsync-one|fsync]
  ${pad}       [--durability-floor process|fsync-one|fsync (new cluster)] [--config FILE] [--log-level info]
  ${pad}       [--http-tls-cert F --http-tls-key F [--http-tls-ca F]] [--peer-tls-cert F --peer-tls-key F --peer-tls-ca F]
  ${pad}       [--token-file F --admin-token-file F] [--cluster-secret-file F] [--insecure] [--cors-origin ORIGIN,...]
  ${pad}       [--strong NAMESPACE,...]
  ${cmd} cluster up --nodes K [--dir DIR] [--http-port 7000] [--peer-port 8000] [--host 127.0.0.1] [--certs DIR]
  ${pad}            [--strong stock,orders,accounts]
  ${cmd} admin status|join|leave|remove [--node http://127.0.0.1:7000] [--seed HOST:PORT] [--node-id ID] [--json]
  ${pad}       [--wait (default; leave: until the node handed everything over) | --no-wait]
  ${pad}       [--token-file ADMIN_TOKEN_FILE] [--ca CA_FILE]
  ${cmd} admin snapshot --out DIR [--node URL] [--json]   (DIR: new or empty, on the node's machine)
  ${cmd} admin repair [--partition P] [--node URL] [--json]   (anti-entropy now: all this node's partitions, or P)
  ${cmd} admin drain [--timeout-ms 60000] [--node URL]   (refuse clients, hand hints over, then exit)
  ${cmd} restore --from SNAPSHOT_DIR --data-dir NEW_DIR [--advertise-http HOST:PORT] [--advertise-peer HOST:PORT]
  ${pad}         [--into-running-cluster] [--json]
  ${cmd} certs --nodes ID[,ID...] [--dir .tessera/certs] [--hosts 127.0.0.1,localhost,::1] [--days 365] [--tokens]

Docs:
  HTTP API      ${DOCS_URL}/api.md
  operations    ${DOCS_URL}/operations.md
  errors        ${DOCS_URL}/errors.md
  transactions  ${DOCS_URL}/transactions.md
  security      ${DOCS_URL}/security.md
  architecture  ${DOCS_URL}/architecture.md
`;
}

/** This package's version, from its package.json (dist/bin/main.js or dist/cli/main.js -> ../../package.json). */
function version(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--version') || argv[0] === 'version') {
    process.stdout.write(`tessera ${version()}\n`);
    return 0;
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage(cliCommand()));
    return 0;
  }
  const [command, sub, ...rest] = argv;
  switch (command) {
    // Each command loads only its own modules: the server's (fastify, gRPC, LevelDB) take about a
    // second of CPU to load, which `admin`, `certs` and `--help` do not need.
    case 'start':
      return (await import('./start.js')).runStart(argv.slice(1));
    case 'cluster':
      if (sub === 'up') return (await import('./cluster-up.js')).runClusterUp(rest);
      break;
    case 'admin':
      if (sub !== undefined) return (await import('./admin.js')).runAdmin(sub, rest);
      break;
    case 'certs':
      return (await import('./certs.js')).runCerts(argv.slice(1));
    case 'restore':
      return (await import('./restore.js')).runRestore(argv.slice(1));
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(usage(cliCommand()));
      return command === undefined ? 1 : 0;
  }
  process.stderr.write(`Unknown command: tessera ${argv.join(' ')}\n\n${usage(cliCommand())}`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    const message = TesseraError.is(err)
      ? `${err.code}: ${err.message}`
      : err instanceof Error
        ? err.message
        : String(err);
    process.stderr.write(`tessera: ${message}\n`);
    process.exitCode = 1;
  },
);
