/**
 * A snapshot's manifest (docs/operations.md, "Backup and restore"): whose data it is, in which
 * format, when it was taken, how many entries of each namespace it holds, and a checksum of them
 * all. The checksum is SHA-256 over every entry in snapshot order (namespace, then key), each
 * entry framed so no two different contents hash the same: namespace byte, key length, key UTF-8,
 * value length, value.
 */
import { createHash, type Hash } from 'node:crypto';
import { TesseraError } from '@tessera/core';
import { z } from 'zod';
import { NAMESPACES } from './base-engine.js';
import type { Namespace } from './engine.js';
import { assertReadableFormat } from './format.js';

/** The version of the snapshot directory's own layout (manifest.json + db/). */
export const SNAPSHOT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';
/** The LevelDB of the snapshot, laid out as a data dir's `db/`. */
export const SNAPSHOT_DB_DIR = 'db';
/** A manifest is a few hundred bytes; anything much larger is not one. */
export const MANIFEST_BYTES_MAX = 64 * 1024;

const countsSchema = z.object({
  data: z.number().int().min(0),
  hints: z.number().int().min(0),
  meta: z.number().int().min(0),
});

const manifestSchema = z.object({
  kind: z.literal('tessera-snapshot'),
  snapshotVersion: z.number().int().min(1),
  formatVersion: z.number().int().min(1),
  nodeId: z.string().min(1).max(64),
  clusterId: z.string().min(1).max(128),
  startedAt: z.string().max(64),
  finishedAt: z.string().max(64),
  keys: countsSchema,
  bytes: z.number().int().min(0),
  checksum: z.string().regex(/^sha256:[0-9a-f]{64}$/),
});

export type SnapshotManifest = z.infer<typeof manifestSchema>;
export type NamespaceCounts = z.infer<typeof countsSchema>;

/** The running checksum and counts of a snapshot's entries, fed in snapshot order. */
export class SnapshotDigest {
  private readonly hash: Hash = createHash('sha256');
  private readonly counts: Record<Namespace, number> = { data: 0, hints: 0, meta: 0 };
  private byteCount = 0;
  private readonly frame = Buffer.alloc(5);

  add(ns: Namespace, key: string, value: Uint8Array): void {
    const keyBytes = Buffer.from(key, 'utf8');
    this.frame.writeUInt8(NAMESPACES.indexOf(ns), 0);
    this.frame.writeUInt32BE(keyBytes.length, 1);
    this.hash.update(this.frame);
    this.hash.update(keyBytes);
    this.frame.writeUInt32BE(value.byteLength, 1);
    this.hash.update(this.frame.subarray(1));
    this.hash.update(value);
    this.counts[ns]++;
    this.byteCount += keyBytes.length + value.byteLength;
  }

  get entries(): number {
    return this.counts.data + this.counts.hints + this.counts.meta;
  }

  /** The totals; call once, after the last entry. */
  finish(): { keys: NamespaceCounts; bytes: number; checksum: string } {
    return { keys: { ...this.counts }, bytes: this.byteCount, checksum: `sha256:${this.hash.digest('hex')}` };
  }
}

/** Parses and checks a manifest's text; `where` names the snapshot in messages. */
export function parseManifest(text: string, where: string): SnapshotManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid(`${where}/${MANIFEST_FILE} is not JSON`);
  }
  const version = (raw as { snapshotVersion?: unknown } | null)?.snapshotVersion;
  if (typeof version === 'number' && version > SNAPSHOT_VERSION) {
    throw new TesseraError(
      'DATA_FORMAT_TOO_NEW',
      `${where} is a snapshot of version ${version}, written by a newer Tessera; this Tessera reads version ${SNAPSHOT_VERSION}. Restore it with the Tessera that took it.`,
    );
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(
      `${where}/${MANIFEST_FILE} is not a Tessera snapshot manifest (${issue?.path.join('.') || 'root'}: ${issue?.message})`,
    );
  }
  assertReadableFormat(parsed.data.formatVersion, `The snapshot ${where}`);
  return parsed.data;
}

/** Checks what was read back against the manifest: counts first (the clearer message), then the checksum. */
export function verifyContents(
  manifest: SnapshotManifest,
  found: ReturnType<SnapshotDigest['finish']>,
  where: string,
): void {
  for (const ns of NAMESPACES) {
    if (found.keys[ns] !== manifest.keys[ns]) {
      throw invalid(
        `${where} holds ${found.keys[ns]} ${ns} entries but its manifest says ${manifest.keys[ns]}: the snapshot is incomplete or damaged`,
      );
    }
  }
  if (found.checksum !== manifest.checksum || found.bytes !== manifest.bytes) {
    throw invalid(`${where} does not match its manifest's checksum: the snapshot is damaged`);
  }
}

function invalid(what: string): TesseraError {
  return new TesseraError(
    'SNAPSHOT_INVALID',
    `${what}. Restore from another snapshot, or take a new one with tessera admin snapshot.`,
  );
}
