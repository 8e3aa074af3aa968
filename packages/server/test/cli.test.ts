/** The CLI as a user runs it: `tessera cluster up`, then `tessera admin status`. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DIST_CLI, freePortBlock, http, kvPath, waitFor } from './helpers.js';

const run = promisify(execFile);
let child: ChildProcess | undefined;
let dir = '';

afterAll(async () => {
  // The whole process group: a failed test must not leave `cluster up`'s three nodes running.
  if (child?.pid !== undefined && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('tessera cluster up', () => {
  it('starts three nodes, prints how to use them, and stops them all on SIGTERM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-cli-'));
    const base = await freePortBlock(6);
    const peerBase = base + 3;
    child = spawn(
      process.execPath,
      [
        DIST_CLI,
        'cluster',
        'up',
        '--nodes',
        '3',
        '--dir',
        dir,
        '--http-port',
        String(base),
        '--peer-port',
        String(peerBase),
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group, so that cleanup reaches the nodes it starts.
        detached: true,
      },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await waitFor(
      () => output.includes('Cluster is up'),
      45_000,
      `the cluster is up; output so far:\n${output}`,
    );
    for (let i = 0; i < 3; i++)
      expect(output).toContain(`node n${i} ready  http http://127.0.0.1:${base + i}`);
    expect(output).toContain(`curl -s -X PUT http://127.0.0.1:${base}/v1/kv/cart-42`);

    const url = `http://127.0.0.1:${base}`;
    await waitFor(
      async () => {
        const { stdout } = await run(process.execPath, [DIST_CLI, 'admin', 'status', '--node', url]);
        return ['n0', 'n1', 'n2'].every((id) => new RegExp(`^${id}\\s+up\\s+2[12]\\s`, 'm').test(stdout));
      },
      30_000,
      'admin status lists three up members',
    );

    const put = await http(url, 'PUT', kvPath('cli-key'), { json: { value: 'hello' } });
    expect(put.status).toBe(200);
    expect((await http(`http://127.0.0.1:${base + 2}`, 'GET', kvPath('cli-key'))).body.siblings).toHaveLength(
      1,
    );

    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    for (let i = 0; i < 3; i++) {
      await expect(fetch(`http://127.0.0.1:${base + i}/health`)).rejects.toThrow();
    }
  }, 90_000);

  it('explains a bad command and exits non-zero', async () => {
    await expect(run(process.execPath, [DIST_CLI, 'cluster', 'up', '--nodes', '0'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--nodes must be a whole number'),
    });
    await expect(run(process.execPath, [DIST_CLI, 'start', '--node-id', 'bad id!'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Invalid configuration'),
    });
    await expect(run(process.execPath, [DIST_CLI, 'frobnicate'])).rejects.toMatchObject({ code: 1 });
  });

  it('prints its version, and help for every command with --help', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect((await run(process.execPath, [DIST_CLI, '--version'])).stdout).toBe(`tessera ${version}\n`);
    for (const args of [
      ['start', '--help'],
      ['admin', '--help'],
      ['cluster', 'up', '--help'],
      ['certs', '-h'],
    ]) {
      const { stdout } = await run(process.execPath, [DIST_CLI, ...args]);
      expect(stdout, args.join(' ')).toContain('Usage:');
      expect(stdout).toContain('--strong');
    }
  });
});
