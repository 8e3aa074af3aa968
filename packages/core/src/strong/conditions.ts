/**
 * Conditions on strong keys (If-Match / If-None-Match, and a transaction action's `condition`)
 * and the reasons a transaction is cancelled, after DynamoDB's `CancellationReasons`.
 */
import type { Register } from './register.js';

export type Condition =
  | { readonly ifVersion: string }
  | { readonly ifAbsent: true }
  | { readonly ifExists: true };

/** Whether `condition` holds for a register (its intent, when it has one, not applied). */
export function conditionHolds(register: Register, condition: Condition | undefined): boolean {
  if (condition === undefined) return true;
  if ('ifVersion' in condition) return String(register.version) === condition.ifVersion;
  if ('ifAbsent' in condition) return register.value === undefined;
  return register.value !== undefined;
}

export type CancellationReason =
  | { readonly code: 'None' }
  | { readonly code: 'ConditionalCheckFailed'; readonly currentVersion: string }
  | { readonly code: 'TransactionConflict'; readonly message?: string };
