#!/usr/bin/env node
/** `tessera`: start a node, run a local cluster, or talk to a node's admin API. */
import { TesseraError } from '@tessera/core';
import { runAdmin } from './admin.js';
import { runClusterUp } from './cluster-up.js';
import { runStart } from './start.js';

const USAGE = `Usage:
  tessera start --node-id ID --http HOST:PORT --peer HOST:PORT --data-dir DIR [--seed HOST:PORT]...
                [--n 3 --r 2 --w 2 --partitions 64] [--storage leveldb|memory] [--durability process|fsync-one|fsync]
                [--config FILE] [--log-level info]
  tessera cluster up --nodes K [--dir DIR] [--http-port 7000] [--peer-port 8000] [--host 127.0.0.1]
  tessera admin status|join|leave|remove [--node http://127.0.0.1:7000] [--seed HOST:PORT] [--node-id ID] [--json]

Docs: docs/api.md (HTTP API), docs/architecture.md, docs/errors.md.
`;

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  switch (command) {
    case 'start':
      return runStart(argv.slice(1));
    case 'cluster':
      if (sub === 'up') return runClusterUp(rest);
      break;
    case 'admin':
      if (sub !== undefined) return runAdmin(sub, rest);
      break;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 1 : 0;
  }
  process.stderr.write(`Unknown command: tessera ${argv.join(' ')}\n\n${USAGE}`);
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
