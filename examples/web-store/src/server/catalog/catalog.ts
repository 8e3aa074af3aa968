/** The shop's seeded catalog: ten products, each drawn by the store itself (see drawings.ts). */
import type { Product } from '../../shared/api.js';

interface Seed {
  readonly id: string;
  readonly name: string;
  readonly blurb: string;
  readonly priceCents: number;
}

const SEEDS: readonly Seed[] = [
  { id: 'mug', name: 'Stoneware mug', blurb: 'Glazed by hand, holds 350 ml.', priceCents: 1400 },
  { id: 'kettle', name: 'Copper kettle', blurb: 'Whistles when the water is ready.', priceCents: 4900 },
  { id: 'lamp', name: 'Desk lamp', blurb: 'Warm light on a jointed arm.', priceCents: 3900 },
  { id: 'fern', name: 'Potted fern', blurb: 'Happy in the shade, forgiving.', priceCents: 2200 },
  { id: 'notebook', name: 'Dot-grid notebook', blurb: '192 pages, lies flat.', priceCents: 950 },
  { id: 'headphones', name: 'Studio headphones', blurb: 'Closed back, long cable.', priceCents: 8900 },
  { id: 'backpack', name: 'Canvas backpack', blurb: 'Waxed canvas, leather straps.', priceCents: 6400 },
  { id: 'camera', name: 'Instant camera', blurb: 'Prints while you watch.', priceCents: 7900 },
  { id: 'record', name: 'Vinyl record', blurb: 'Side A: Dynamo. Side B: siblings.', priceCents: 2500 },
  { id: 'watch', name: 'Field watch', blurb: 'Hand-wound, 38 mm.', priceCents: 12000 },
];

export class Catalog {
  private readonly byId: ReadonlyMap<string, Product>;

  constructor(seeds: readonly Seed[] = SEEDS) {
    this.byId = new Map(seeds.map((s) => [s.id, { ...s, image: `/images/${s.id}.svg` }]));
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
