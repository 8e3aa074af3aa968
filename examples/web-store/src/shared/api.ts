/**
 * The store's JSON API as the page sees it: one set of types for the server and the browser code.
 * Types only (no runtime code), so either side can import them with `import type`. This file
 * gathers them; each concept has its own file.
 */
export type * from './cart-api.js';
export type * from './cluster-api.js';
export type * from './reconcile-api.js';
export type * from './replica-api.js';
export type * from './stock-api.js';
export type * from './story-api.js';

export interface Product {
  readonly id: string;
  readonly name: string;
  readonly blurb: string;
  readonly priceCents: number;
  /** URL of the product's drawing (an SVG the store draws itself). */
  readonly image: string;
}

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly details?: unknown };
}
