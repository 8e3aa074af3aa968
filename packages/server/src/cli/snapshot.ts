/**
 * `tessera admin snapshot --out DIR`: asks a running node for a point-in-time snapshot of its data
 * and follows it to the end. The node writes it, so DIR is a directory on the node's machine (a
 * relative DIR is made absolute against this shell's directory: give an absolute one when the node
 * runs elsewhere). Why the node writes it rather than streaming it here: the copy is a plain
 * LevelDB plus a manifest, written at disk speed with no second copy through HTTP, and a snapshot
 * survives the CLI being interrupted.
 */
import { resolve } from 'node:path';
import { isErrorCode, TesseraError } from '@tessera/core';
import type { SnapshotJob } from '../node/snapshots.js';

/** How long the CLI follows a snapshot before giving up on it (the node carries on). */
const FOLLOW_MS = 60 * 60_000;
const POLL_MS = 200;

export type NodeCall = (method: string, path: string, body?: unknown) => Promise<unknown>;

export async function runSnapshot(call: NodeCall, out: string | undefined, json: boolean): Promise<number> {
  if (out === undefined) {
    throw new TesseraError(
      'BAD_REQUEST',
      'admin snapshot needs --out DIR (a new or empty directory on the node’s machine).',
    );
  }
  const dir = resolve(out);
  let job = (await call('POST', '/v1/admin/snapshot', { dir })) as SnapshotJob;
  const deadline = Date.now() + FOLLOW_MS;
  while (job.state === 'running' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const last = (await call('GET', '/v1/admin/snapshot')) as SnapshotJob;
    if (last.dir === dir) job = last;
  }
  if (json) process.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
  if (job.state === 'running') {
    throw new TesseraError(
      'TIMEOUT',
      `The snapshot into ${dir} still runs after ${FOLLOW_MS / 60_000} minutes; follow it with GET /v1/admin/snapshot.`,
    );
  }
  if (job.state === 'failed' || job.manifest === undefined) {
    const error = job.error ?? { code: 'INTERNAL', message: 'The snapshot failed without a reason.' };
    throw new TesseraError(
      isErrorCode(error.code) ? error.code : 'STORAGE_FAILURE',
      `The snapshot into ${dir} failed, and its directory was removed: ${error.message}`,
    );
  }
  if (!json) {
    const m = job.manifest;
    process.stdout.write(
      `snapshot of node ${m.nodeId} (cluster ${m.clusterId}) written to ${dir}\n` +
        `${m.keys.data} data, ${m.keys.hints} hint, ${m.keys.meta} meta entries; format ${m.formatVersion}; ${m.checksum}\n`,
    );
  }
  return 0;
}
