/**
 * The shop's seeded catalog: ten products, each drawn by the store itself (see drawings.ts), and
 * how many of each the shop starts with (its stock, kept in Tessera: see stock/stock.ts). A few
 * are scarce on purpose, so that two customers can race for the last one.
 */
import type { Product } from '../../shared/api.js';

export interface Seed {
  readonly id: string;
  readonly name: string;
  readonly blurb: string;
  readonly priceCents: number;
  /** The stock the shop starts with, written once (with ifAbsent) the first time the store runs. */
  readonly stock: number;
}

const SEEDS: readonly Seed[] = [
  { id: 'mug', name: 'Stoneware mug', blurb: 'Glazed by hand, holds 350 ml.', priceCents: 1400, stock: 12 },
  {
    id: 'kettle',
    name: 'Copper kettle',
    blurb: 'Whistles when the water is ready.',
    priceCents: 4900,
    stock: 6,
  },
  { id: 'lamp', name: 'Desk lamp', blurb: 'Warm light on a jointed arm.', priceCents: 3900, stock: 1 },
  { id: 'fern', name: 'Potted fern', blurb: 'Happy in the shade, forgiving.', priceCents: 2200, stock: 8 },
  { id: 'notebook', name: 'Dot-grid notebook', blurb: '192 pages, lies flat.', priceCents: 950, stock: 20 },
  {
    id: 'headphones',
    name: 'Studio headphones',
    blurb: 'Closed back, long cable.',
    priceCents: 8900,
    stock: 3,
  },
  {
    id: 'backpack',
    name: 'Canvas backpack',
    blurb: 'Waxed canvas, leather straps.',
    priceCents: 6400,
    stock: 5,
  },
  { id: 'camera', name: 'Instant camera', blurb: 'Prints while you watch.', priceCents: 7900, stock: 2 },
  {
    id: 'record',
    name: 'Vinyl record',
    blurb: 'Side A: Dynamo. Side B: siblings.',
    priceCents: 2500,
    stock: 10,
  },
  { id: 'watch', name: 'Field watch', blurb: 'Hand-wound, 38 mm.', priceCents: 12000, stock: 2 },
];

export class Catalog {
  private readonly byId: ReadonlyMap<string, Product>;
  private readonly initial: ReadonlyMap<string, number>;

  constructor(seeds: readonly Seed[] = SEEDS) {
    this.byId = new Map(
      seeds.map((s) => [
        s.id,
        { id: s.id, name: s.name, blurb: s.blurb, priceCents: s.priceCents, image: `/images/${s.id}.svg` },
      ]),
    );
    this.initial = new Map(seeds.map((s) => [s.id, s.stock]));
  }

  /** The stock each product starts with, in catalog order. */
  initialStock(): [productId: string, count: number][] {
    return [...this.initial];
  }

  all(): Product[] {
    return [...this.byId.values()];
  }

  get(id: string): Product | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The name to show for an item id, also for an id no longer in the catalog. */
  name(id: string): string {
    return this.byId.get(id)?.name ?? id;
  }
}
