/**
 * Stock as the API answers it. Stock counts and orders live in Tessera's strong namespaces
 * (`stock/<productId>`, `orders/<orderId>`): linearizable keys with versions, written by one
 * all-or-nothing transaction at checkout, so the shop never sells what it does not have.
 */

/** How many of one product are left. */
export interface StockLevel {
  readonly productId: string;
  readonly left: number;
}

export interface StockView {
  /** One consistent snapshot of every product's stock (`POST /v1/transactions/get`). */
  readonly stock: readonly StockLevel[];
  /** When the store read it (ISO time). */
  readonly observedAt: string;
}

/** A cart line that the stock cannot cover: why a checkout was refused (SOLD_OUT). */
export interface Shortage {
  readonly productId: string;
  readonly name: string;
  /** How many the cart holds. */
  readonly wanted: number;
  /** How many are left. */
  readonly left: number;
  /** Someone bought it just now: this checkout lost the race for it, or it sold in the last minutes. */
  readonly justBought: boolean;
}

/** The `details` of a SOLD_OUT error. */
export interface SoldOutDetails {
  readonly shortages: readonly Shortage[];
}
