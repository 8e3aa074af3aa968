/**
 * Where the transfer of one partition to this node stands, persisted in the meta namespace so a
 * receiver killed mid-transfer resumes after the last key it merged instead of starting over.
 */
import { z } from 'zod';
import type { StorageEngine } from '../storage/engine.js';

export interface TransferCursor {
  /** The last key merged; absent before the first. */
  readonly afterKey?: string;
  readonly keysSent: number;
  readonly done: boolean;
}

const schema = z.object({
  afterKey: z.string().optional(),
  keysSent: z.number().int().min(0),
  done: z.boolean(),
});
const PREFIX = 'transfer-cursor/';

/** Cursors belong to one ring change (the next ring's version) and one partition. */
function cursorKey(ringVersion: number, partition: number): string {
  return `${PREFIX}${String(ringVersion).padStart(12, '0')}/${partition}`;
}

export class CursorStore {
  constructor(
    private readonly engine: StorageEngine,
    private readonly sync: boolean,
  ) {}

  async read(ringVersion: number, partition: number): Promise<TransferCursor> {
    const bytes = await this.engine.get('meta', cursorKey(ringVersion, partition));
    if (bytes === undefined) return { keysSent: 0, done: false };
    const parsed = schema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? parsed.data : { keysSent: 0, done: false };
  }

  write(ringVersion: number, partition: number, cursor: TransferCursor): Promise<void> {
    const value = new TextEncoder().encode(JSON.stringify(cursor));
    return this.engine.batch([{ type: 'put', ns: 'meta', key: cursorKey(ringVersion, partition), value }], {
      sync: this.sync,
    });
  }

  /** Drops the cursors of changes older than `ringVersion` (they are over). */
  async prune(ringVersion: number): Promise<void> {
    const ops = [];
    for await (const [key] of this.engine.iterate('meta', { gte: PREFIX, lt: cursorKey(ringVersion, 0) }))
      ops.push({ type: 'del' as const, ns: 'meta' as const, key });
    if (ops.length > 0) await this.engine.batch(ops);
  }
}
