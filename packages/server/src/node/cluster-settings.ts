/**
 * The cluster-wide settings (N, R, W, Q, durability floor) as a node's config gives them, and the
 * check a starting node makes against its cluster's (docs/operations.md, "Cluster-wide settings").
 * A seed makes the same check before admitting a joiner (peer-handler.ts).
 */
import {
  type ClusterSettings,
  type ClusterState,
  DURABILITY_FLOOR_DEFAULT,
  type NodeSettings,
  settingsMismatch,
  TesseraError,
} from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

type SettingsConfig = Pick<Config, 'n' | 'r' | 'w' | 'partitions' | 'durability' | 'durabilityFloor'>;

/** What to do about a mismatch; both refusals (a restart's, a seed's) end with it. */
export const SETTINGS_ADVICE =
  "Start it with the cluster's --n, --r and --w (3, 2, 2 if the cluster was created without them), a --durability at least the cluster's floor, and --partitions and --durability-floor left out or the cluster's: they are fixed when the cluster is created.";

/** The settings a cluster this node creates records. */
export function settingsOf(config: SettingsConfig): ClusterSettings {
  return {
    n: config.n,
    r: config.r,
    w: config.w,
    durabilityFloor: config.durabilityFloor ?? DURABILITY_FLOOR_DEFAULT,
  };
}

/** What this node's config says about the cluster-wide settings; Q and the floor only if given. */
export function nodeSettingsOf(config: SettingsConfig): NodeSettings {
  return {
    n: config.n,
    r: config.r,
    w: config.w,
    durability: config.durability,
    ...(config.partitions === undefined ? {} : { partitions: config.partitions }),
    ...(config.durabilityFloor === undefined ? {} : { durabilityFloor: config.durabilityFloor }),
  };
}

/**
 * Refuses (CLUSTER_MISMATCH) to run this node in a cluster whose settings its config contradicts:
 * a member that acknowledged writes with another W, on other replicas than everyone else's, or
 * with a weaker durability than the cluster promises, would break what the cluster guarantees. A
 * state without recorded settings is judged against the ones this node would record.
 */
export function requireSettings(config: SettingsConfig, state: ClusterState): void {
  const cluster = state.settings ?? settingsOf(config);
  const mismatch = settingsMismatch(cluster, state.ring.partitionCount, nodeSettingsOf(config));
  if (mismatch !== undefined) {
    throw new TesseraError(
      'CLUSTER_MISMATCH',
      `This node's settings are not its cluster's: ${mismatch}. ${SETTINGS_ADVICE}`,
    );
  }
}

/**
 * A restart must use the cluster's settings (requireSettings). A state from before settings were
 * recorded adopts this node's (gossip then agrees on one).
 */
export async function checkSettings(
  config: SettingsConfig,
  view: ClusterView,
  state: ClusterState,
  log: Logger,
): Promise<ClusterState> {
  requireSettings(config, state);
  if (state.settings !== undefined) return state;
  const settings = settingsOf(config);
  const adopted = { ...state, settings };
  await view.set(adopted);
  log.info(settings, 'recorded the cluster settings');
  return adopted;
}
