/**
 * Stock in Tessera's strong namespace `stock`: one key per product, `stock/<productId>`, holding
 * `{ left, lastSoldAt }`. Strong keys are linearizable and carry a version, so checkout can take
 * stock with a write conditioned on the version it read (orders/checkout.ts) and never sell what
 * is not there. The shop's starting counts are written once, with ifAbsent: a restart of the store
 * (or of the cluster, which keeps its data) does not reset them.
 */
import { type TesseraClient, TesseraError, type TransactGetItem } from '@tessera/client';
import { z } from 'zod';
import type { StockLevel, StockView } from '../../shared/api.js';
import type { Catalog } from '../catalog/catalog.js';
import { STRONG_CALL, type StrongAccess } from '../cluster/strong-access.js';

/** The namespaces every node must declare strong (`tessera start --strong stock,orders`). */
export const STRONG_NAMESPACES = ['stock', 'orders'] as const;

export const stockKey = (productId: string): string => `stock/${productId}`;

export const stockSchema = z.object({
  left: z.number().int().min(0),
  /** When the last unit was sold (ISO time), null before the first sale. */
  lastSoldAt: z.string().nullable(),
});
export type StockRecord = z.infer<typeof stockSchema>;

/** A product's stock as read: no value (never stocked) counts as none left. */
export interface StockRead {
  readonly record: StockRecord;
  readonly version: string;
  readonly found: boolean;
}

export function stockRead(item: TransactGetItem): StockRead {
  const parsed = item.found ? stockSchema.safeParse(item.value) : undefined;
  return parsed?.success === true
    ? { record: parsed.data, version: item.version, found: true }
    : { record: { left: 0, lastSoldAt: null }, version: item.version, found: item.found };
}

/** How long to wait, at start, for the nodes' strong keys to be served. */
const SEED_DEADLINE_MS = 30_000;
const SEED_POLL_MS = 300;

export class Stock {
  constructor(
    private readonly strong: StrongAccess,
    private readonly catalog: Catalog,
  ) {}

  /**
   * Writes the starting stock of every product that has none yet, in one transaction, each put
   * with ifAbsent (a product already stocked keeps its count). Refuses to go on when the nodes do
   * not declare `stock` strong. Answers how many products it stocked.
   */
  async seed(): Promise<number> {
    const deadline = Date.now() + SEED_DEADLINE_MS;
    for (;;) {
      try {
        const { value } = await this.strong.run('auto', (client) => this.seedOn(client));
        return value;
      } catch (err) {
        if (TesseraError.is(err, 'NOT_STRONG_KEY')) {
          throw new Error(
            `The Tessera nodes do not treat ${stockKey('…')} as a strong key: start every node with ` +
              `--strong ${STRONG_NAMESPACES.join(',')} (\`tessera cluster up\` declares stock,orders,accounts).`,
          );
        }
        if (Date.now() > deadline) {
          throw new Error(
            `Could not stock the shop within ${SEED_DEADLINE_MS / 1000} s: ${(err as Error).message}`,
          );
        }
        await new Promise((r) => setTimeout(r, SEED_POLL_MS));
      }
    }
  }

  private async seedOn(client: TesseraClient): Promise<number> {
    const initial = this.catalog.initialStock();
    const items = await client.transactGet(
      initial.map(([id]) => stockKey(id)),
      STRONG_CALL,
    );
    const missing = initial.filter((_, i) => items[i]?.found !== true);
    if (missing.length === 0) return 0;
    const stock = client.strong<StockRecord>('stock');
    await client.transact(
      missing.map(([id, left]) => stock.putAction(id, { left, lastSoldAt: null }, { ifAbsent: true })),
      STRONG_CALL,
    );
    return missing.length;
  }

  /** Every product's stock, from one consistent snapshot. */
  async levels(asked: string): Promise<StockView> {
    const ids = this.catalog.all().map((p) => p.id);
    const { value } = await this.strong.run(asked, (client) =>
      client.transactGet(
        ids.map((id) => stockKey(id)),
        STRONG_CALL,
      ),
    );
    const stock: StockLevel[] = ids.map((productId, i) => ({
      productId,
      left: value[i] === undefined ? 0 : stockRead(value[i]).record.left,
    }));
    return { stock, observedAt: new Date().toISOString() };
  }
}
