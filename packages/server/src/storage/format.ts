/**
 * The on-disk format version of a data dir (docs/operations.md, "On-disk format"): the data layout
 * marker `data-layout` in the meta namespace (layout.ts). A Tessera reads every format from
 * FORMAT_VERSION_OLDEST to FORMAT_VERSION, upgrading older ones in place when its stores open; a
 * data dir (or a snapshot) of a newer format is refused before anything is written to it.
 */
import { TesseraError } from '@tessera/core';
import type { StorageEngine } from './engine.js';
import { LAYOUT_KEY, LAYOUT_VERSION } from './layout.js';

/** The format this Tessera writes. */
export const FORMAT_VERSION = LAYOUT_VERSION;
/** The oldest format this Tessera still reads (and upgrades). */
export const FORMAT_VERSION_OLDEST = 1;

/** The format a data dir is in; one without a marker is new, or of format 1 (which had none). */
export async function formatOf(engine: StorageEngine): Promise<number> {
  const marker = await engine.get('meta', LAYOUT_KEY);
  if (marker === undefined) return 1;
  const text = new TextDecoder().decode(marker);
  const version = Number(text);
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new TesseraError(
      'STORAGE_FAILURE',
      `The data dir's format marker reads ${JSON.stringify(text.slice(0, 32))}, not a version number: the data dir is damaged or not Tessera's. Restore it from a snapshot, or use another --data-dir.`,
    );
  }
  return version;
}

/** Refuses a format this Tessera cannot read; `where` names the data dir or snapshot in the message. */
export function assertReadableFormat(version: number, where: string): void {
  if (version >= FORMAT_VERSION_OLDEST && version <= FORMAT_VERSION) return;
  throw new TesseraError(
    'DATA_FORMAT_TOO_NEW',
    `${where} is in on-disk format ${version}, written by a newer Tessera; this Tessera reads formats ${FORMAT_VERSION_OLDEST} to ${FORMAT_VERSION}. Run a Tessera that reads format ${version} (a newer release), or use another data dir. Nothing was changed.`,
    { format: version, supported: [FORMAT_VERSION_OLDEST, FORMAT_VERSION] },
  );
}

/** Checks a just-opened data dir's format, before anything writes to it. */
export async function checkFormat(engine: StorageEngine, where: string): Promise<void> {
  assertReadableFormat(await formatOf(engine), where);
}
