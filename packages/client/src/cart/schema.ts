/** Checks that a stored value is a cart, as a Standard Schema (usable as a collection's schema). */
import type { SchemaIssue, SchemaResult, StandardSchemaV1 } from '../schema.js';
import { CART_QUANTITY_MAX, CART_TYPE, type Cart } from './state.js';

export function cartIssues(value: unknown): SchemaIssue[] {
  if (!isRecord(value)) return [{ message: 'A cart is an object.' }];
  const issues: SchemaIssue[] = [];
  if (value.type !== CART_TYPE) issues.push({ message: `type must be "${CART_TYPE}".`, path: ['type'] });
  if (value.v !== 1) issues.push({ message: 'v must be 1.', path: ['v'] });
  if (!isRecord(value.lines)) issues.push({ message: 'lines must be an object.', path: ['lines'] });
  else {
    for (const [tag, line] of Object.entries(value.lines)) {
      if (!isLine(line)) {
        issues.push({
          message: `a line is { item: non-empty string, qty: whole number 0..${CART_QUANTITY_MAX}, set?: true, at: number }.`,
          path: ['lines', tag],
        });
      }
    }
  }
  if (!isRecord(value.removed)) issues.push({ message: 'removed must be an object.', path: ['removed'] });
  else {
    for (const [tag, at] of Object.entries(value.removed)) {
      if (typeof at !== 'number' || !Number.isFinite(at)) {
        issues.push({ message: 'a tombstone is a time in ms.', path: ['removed', tag] });
      }
    }
  }
  return issues;
}

export function isCart(value: unknown): value is Cart {
  return cartIssues(value).length === 0;
}

/** `client.collection('cart', { schema: cart.schema, resolver: resolvers.cart() })`. */
export const cartSchema: StandardSchemaV1<Cart, Cart> = {
  '~standard': {
    version: 1,
    vendor: 'tessera',
    validate(value: unknown): SchemaResult<Cart> {
      const issues = cartIssues(value);
      return issues.length === 0 ? { value: value as Cart } : { issues };
    },
  },
};

function isLine(line: unknown): boolean {
  if (!isRecord(line)) return false;
  return (
    typeof line.item === 'string' &&
    line.item.length > 0 &&
    Number.isInteger(line.qty) &&
    (line.qty as number) >= 0 &&
    (line.qty as number) <= CART_QUANTITY_MAX &&
    (line.set === undefined || line.set === true) &&
    typeof line.at === 'number' &&
    Number.isFinite(line.at)
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
