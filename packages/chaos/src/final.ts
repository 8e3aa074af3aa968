/**
 * After the heal: wait for the ring to settle, then read every key from each of its replicas
 * directly (`?local=true`, the replica's own stored copy) until all replicas hold the same
 * siblings, within a bound. Each key's last reading goes into the history as a `final` event.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosCluster, StatusBody } from './cluster.js';
import type { History, WeakWorkload } from './history.js';

const POLL_MS = 250;
/** Keys read at once. */
const READ_CONCURRENCY = 16;

/** Waits until every final member sees the same ring, with no change pending. False on timeout. */
export async function waitForSettledRing(
  cluster: ChaosCluster,
  members: readonly string[],
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const all = await Promise.all(members.map((id) => cluster.status(id).catch(() => undefined)));
    if (settled(all, members)) return true;
    await sleep(POLL_MS);
  }
  return false;
}

function settled(all: readonly (StatusBody | undefined)[], members: readonly string[]): boolean {
  const first = all[0];
  if (first === undefined) return false;
  const owners = first.ring.owners.join(',');
  const expected = [...members].sort().join(',');
  return all.every(
    (s) =>
      s !== undefined &&
      s.pending === null &&
      s.ringVersion === first.ringVersion &&
      s.ring.owners.join(',') === owners &&
      [...new Set(s.ring.owners)].sort().join(',') === expected,
  );
}

export interface FinalReadOptions {
  readonly cluster: ChaosCluster;
  readonly history: History;
  /** A member to ask for preference lists. */
  readonly observer: string;
  readonly n: number;
  readonly keys: ReadonlyMap<string, WeakWorkload>;
  /** ms (history time) of the heal, to report how long convergence took. */
  readonly healedAtMs: number;
  readonly timeoutMs: number;
}

/** Reads every key from its replicas until they agree or the time is up; records `final` events. */
export async function finalReads(o: FinalReadOptions): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  const keys = [...o.keys.keys()];
  const replicasOf = new Map<string, string[]>();
  for (const batch of chunks(keys, READ_CONCURRENCY)) {
    await Promise.all(
      batch.map(async (key) =>
        replicasOf.set(key, (await o.cluster.preferenceList(o.observer, key)).slice(0, o.n)),
      ),
    );
  }
  const last = new Map<string, Record<string, unknown[] | null>>();
  let pending = keys;
  while (true) {
    const stillApart: string[] = [];
    for (const batch of chunks(pending, READ_CONCURRENCY)) {
      await Promise.all(
        batch.map(async (key) => {
          const replicas = await readReplicas(o.cluster, key, replicasOf.get(key) ?? []);
          last.set(key, replicas);
          if (agree(Object.values(replicas))) record(o, key, replicas, true);
          else stillApart.push(key);
        }),
      );
    }
    pending = stillApart;
    if (pending.length === 0 || Date.now() >= deadline) break;
    await sleep(POLL_MS);
  }
  for (const key of pending) record(o, key, last.get(key) ?? {}, false);
}

function record(
  o: FinalReadOptions,
  key: string,
  replicas: Record<string, unknown[] | null>,
  converged: boolean,
): void {
  const atMs = o.history.now();
  o.history.add({
    kind: 'final',
    atMs,
    workload: o.keys.get(key) ?? 'set',
    key,
    replicas,
    converged,
    ...(converged ? { convergedAfterMs: atMs - o.healedAtMs } : {}),
  });
}

async function readReplicas(
  cluster: ChaosCluster,
  key: string,
  replicas: readonly string[],
): Promise<Record<string, unknown[] | null>> {
  const values = await Promise.all(replicas.map((id) => cluster.localValues(id, key).catch(() => null)));
  return Object.fromEntries(replicas.map((id, i) => [id, values[i] ?? null]));
}

/** All replicas answered with the same siblings (in any order). */
export function agree(replicas: readonly (readonly unknown[] | null)[]): boolean {
  if (replicas.length === 0 || replicas.some((r) => r === null)) return false;
  const texts = replicas.map((r) =>
    (r ?? [])
      .map((v) => JSON.stringify(v))
      .sort()
      .join('\n'),
  );
  return texts.every((t) => t === texts[0]);
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
