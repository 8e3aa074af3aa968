/**
 * LevelDB's background thread runs at a lower priority (compactionNice), so its flushes and
 * compactions wait for the event loops on shared cores: a real node process, its threads read
 * from /proc (Linux only: elsewhere the setting does nothing, which the node logs).
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalNode } from '../src/cli/local-cluster.js';
import { DIST_CLI, freePortBlock } from './helpers.js';

/** The nice value of each thread of `pid`: field 19 of /proc/<pid>/task/<tid>/stat. */
async function threadNices(pid: number): Promise<number[]> {
  const tids = await readdir(`/proc/${pid}/task`);
  const stats = await Promise.all(tids.map((tid) => readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  return stats.map((stat) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
}

let dir: string | undefined;
let node: LocalNode | undefined;

afterEach(async () => {
  await node?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function startNode(config: object): Promise<LocalNode> {
  dir = await mkdtemp(join(tmpdir(), 'tessera-nice-'));
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  const port = await freePortBlock(2);
  node = new LocalNode(
    {
      nodeId: 'n0',
      host: '127.0.0.1',
      httpPort: port,
      peerPort: port + 1,
      dataDir: join(dir, 'n0'),
      seeds: [],
      extraArgs: ['--config', join(dir, 'config.json')],
    },
    DIST_CLI,
  );
  await node.start();
  return node;
}

describe.runIf(process.platform === 'linux')("LevelDB's background thread priority", () => {
  it('gives exactly one thread, LevelDB’s, the configured nice value, and says so in the log', async () => {
    const started = await startNode({ compactionNice: 7 });
    const nices = await threadNices(started.pid as number);
    expect(nices.filter((n) => n === 7)).toHaveLength(1);
    expect(nices.filter((n) => n !== 0 && n !== 7)).toEqual([]);
    const log = await readFile(started.logPath, 'utf8');
    expect(log).toMatch(/"nice":7,"msg":"LevelDB's background thread runs at a lower priority"/);
  });

  it('leaves every thread alone with compactionNice 0', async () => {
    const started = await startNode({ compactionNice: 0 });
    expect(new Set(await threadNices(started.pid as number))).toEqual(new Set([0]));
  });
});
