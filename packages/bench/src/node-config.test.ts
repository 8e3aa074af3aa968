/**
 * `--node-config`: the nodes the harness starts run with the config file given, as
 * `tessera start --config FILE`, and the report names it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalCluster } from './cluster.js';

let dir = '';
afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('a local cluster with a node config file', () => {
  it('starts its nodes with the file, whose settings they report', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-bench-config-'));
    const config = join(dir, 'node.json');
    await writeFile(config, JSON.stringify({ durability: 'fsync-one' }));
    const cluster = await startLocalCluster({ nodes: 1, n: 1, r: 1, w: 1, keepData: false, config });
    try {
      // The default durability is `process`: fsync-one came from the file.
      expect(cluster.info).toMatchObject({ durability: 'fsync-one', config });
    } finally {
      await cluster.stop();
    }
  }, 60_000);
});
