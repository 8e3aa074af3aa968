/**
 * The model of a strong key for the linearizability checker: a compare-and-set register whose every
 * change bumps an integer version, and the per-key check (P-compositionality: a history of independent
 * keys is linearizable when each key's sub-history is).
 */
import { checkLinearizable, type LinearizabilityResult, type Model, type Operation } from './checker.js';

/** A strong key's register: value (JSON string or undefined = absent) and version (integer, starts 0). */
export interface RegisterState {
  readonly value?: string;
  readonly version: number;
}

export type RegisterInput =
  | { f: 'read' }
  | { f: 'write'; value: string }
  | { f: 'cas'; expectVersion: number; value: string }
  | { f: 'delete' };

/** ok:false = precondition failed (cas only) — a definite "did not apply". */
export type RegisterOutput = { ok: true; value?: string; version: number } | { ok: false; version?: number };

/**
 * read: the current value (none when absent) and version. write: sets the value, version+1, returns the
 * new version. cas: applies only when the version is expectVersion (then as a write), else ok:false with
 * the current version if it carries one. delete: a present value becomes absent with version+1, an
 * absent one is left as is; returns the resulting version. A write's or delete's output may leave the
 * value out; when it carries one it must be the resulting value.
 */
export const registerModel: Model<RegisterState, RegisterInput, RegisterOutput> = {
  init: { version: 0 },
  step(state, input, output) {
    switch (input.f) {
      case 'read':
        return output === undefined || acked(output, state, 'exact') ? state : undefined;
      case 'write': {
        const next = { value: input.value, version: state.version + 1 };
        return output === undefined || acked(output, next) ? next : undefined;
      }
      case 'cas': {
        if (state.version !== input.expectVersion) {
          const refused =
            output === undefined || (!output.ok && (output.version ?? state.version) === state.version);
          return refused ? state : undefined;
        }
        const next = { value: input.value, version: state.version + 1 };
        return output === undefined || acked(output, next) ? next : undefined;
      }
      case 'delete': {
        const next = state.value === undefined ? state : { version: state.version + 1 };
        return output === undefined || acked(output, next) ? next : undefined;
      }
    }
  },
  key: (state) => (state.value === undefined ? `${state.version}` : `${state.version}=${state.value}`),
};

/** An ok output with `state`'s version and its value ('exact', as a read must) or none ('optional'). */
function acked(
  output: RegisterOutput,
  state: RegisterState,
  value: 'exact' | 'optional' = 'optional',
): boolean {
  if (!output.ok || output.version !== state.version) return false;
  return output.value === state.value || (value === 'optional' && output.value === undefined);
}

/** Checks each key's sub-history on its own; the map has one result per key in the history. */
export function checkRegisterHistory(
  history: readonly (Operation<RegisterInput, RegisterOutput> & { key: string })[],
  options: { stepsMax?: number } = {},
): Map<string, LinearizabilityResult> {
  const byKey = new Map<string, Operation<RegisterInput, RegisterOutput>[]>();
  for (const op of history) {
    const ops = byKey.get(op.key);
    if (ops === undefined) byKey.set(op.key, [op]);
    else ops.push(op);
  }
  const results = new Map<string, LinearizabilityResult>();
  for (const [key, ops] of byKey) results.set(key, checkLinearizable(registerModel, ops, options));
  return results;
}
