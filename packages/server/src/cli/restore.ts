/**
 * `tessera restore --from DIR --data-dir NEW`: prepares a data dir from a snapshot taken with
 * `tessera admin snapshot` (docs/operations.md, "Backup and restore"); `tessera start` then runs
 * the node on it, under the snapshot's node id.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TesseraError } from '@tessera/core';
import { adjustRestored, checkRestoreOptions, type RestoreOptions } from '../node/restore.js';
import { restoreSnapshot } from '../storage/snapshot.js';

export async function runRestore(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string' },
      'data-dir': { type: 'string' },
      'advertise-http': { type: 'string' },
      'advertise-peer': { type: 'string' },
      'into-running-cluster': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.from === undefined || values['data-dir'] === undefined) {
    throw new TesseraError(
      'BAD_REQUEST',
      'restore needs --from SNAPSHOT_DIR and --data-dir NEW_DIR (see tessera --help).',
    );
  }
  const options: RestoreOptions = {
    advertiseHttp: values['advertise-http'],
    advertisePeer: values['advertise-peer'],
    intoRunningCluster: values['into-running-cluster'],
  };
  checkRestoreOptions(options);
  const from = resolve(values.from);
  const dataDir = resolve(values['data-dir']);
  const manifest = await restoreSnapshot(from, dataDir, (engine, m) => adjustRestored(engine, m, options));
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ dataDir, manifest }, null, 2)}\n`);
    return 0;
  }
  const { keys } = manifest;
  process.stdout.write(
    [
      `restored node ${manifest.nodeId} of cluster ${manifest.clusterId} into ${dataDir}`,
      `snapshot taken ${manifest.finishedAt}: ${keys.data} data, ${keys.hints} hint and ${keys.meta} meta entries, checksum verified`,
      `start it with: tessera start --node-id ${manifest.nodeId} --data-dir ${dataDir} --http HOST:PORT --peer HOST:PORT --seed PEER-OF-ANOTHER-RESTORED-NODE ...`,
      '',
    ].join('\n'),
  );
  return 0;
}
