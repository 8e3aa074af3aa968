/**
 * What `tessera restore` does to a restored data dir once its snapshot is verified
 * (docs/operations.md, "Backup and restore"). The restored node is the same identity (node id,
 * cluster id); its incarnation was not stopped cleanly in the snapshot (it was running), so its
 * first start begins a new incarnation and its writes never claim versions the original wrote
 * after the snapshot.
 */
import { findMember, TesseraError, withMember } from '@tessera/core';
import { ClusterView } from '../cluster/cluster-view.js';
import { hostPort, isWildcard } from '../config.js';
import type { StorageEngine } from '../storage/engine.js';
import type { SnapshotManifest } from '../storage/snapshot-manifest.js';
import { FLAG_KEY } from '../strong/recovery.js';

export interface RestoreOptions {
  /** New addresses for this node's member record (`tessera start` would also set them). */
  readonly advertiseHttp?: string | undefined;
  readonly advertisePeer?: string | undefined;
  /**
   * The rest of the cluster runs on and is not restored: the restored node's strong records are
   * older than the promises it gave since, so it rebuilds them from the other primaries before it
   * votes again (as a wiped node does). Never for a whole-cluster restore: no node would vote.
   */
  readonly intoRunningCluster?: boolean;
}

/** Checks the options before anything is copied. */
export function checkRestoreOptions(options: RestoreOptions): void {
  for (const [flag, value] of [
    ['--advertise-http', options.advertiseHttp],
    ['--advertise-peer', options.advertisePeer],
  ] as const) {
    if (value === undefined) continue;
    if (!hostPort.safeParse(value).success || isWildcard(value)) {
      throw new TesseraError(
        'BAD_REQUEST',
        `${flag} ${JSON.stringify(value)} is not an address other nodes can dial: give HOST:PORT, not a wildcard like 0.0.0.0.`,
      );
    }
  }
}

export async function adjustRestored(
  engine: StorageEngine,
  manifest: SnapshotManifest,
  options: RestoreOptions,
): Promise<void> {
  const view = new ClusterView(engine);
  const state = await view.load(manifest.nodeId);
  if (state === undefined || state.clusterId !== manifest.clusterId) {
    throw new TesseraError(
      'SNAPSHOT_INVALID',
      `The snapshot's cluster state does not match its manifest (cluster ${manifest.clusterId}): the snapshot is damaged.`,
    );
  }
  const me = findMember(state, manifest.nodeId);
  const http = options.advertiseHttp ?? me?.http;
  const peer = options.advertisePeer ?? me?.peer;
  if (
    me !== undefined &&
    http !== undefined &&
    peer !== undefined &&
    (http !== me.http || peer !== me.peer)
  ) {
    await view.set(withMember(state, { ...me, http, peer, incarnation: me.incarnation + 1 }));
  }
  if (options.intoRunningCluster === true) {
    await engine.batch([{ type: 'put', ns: 'meta', key: FLAG_KEY, value: new TextEncoder().encode('1') }], {
      sync: true,
    });
  }
}
