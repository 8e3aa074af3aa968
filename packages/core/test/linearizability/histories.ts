/** Histories for the linearizability checker's tests: ops of a register and of a plain model. */
import {
  checkLinearizable,
  type Model,
  type Operation,
  type RegisterInput,
  type RegisterOutput,
  registerModel,
} from '@tessera/core';

export type RegOp = Operation<RegisterInput, RegisterOutput>;

/** An op of process `p` from `callMs` to `returnMs` (undefined: no answer). */
export const op = (
  p: number,
  input: RegisterInput,
  callMs: number,
  returnMs: number | undefined,
  output?: RegisterOutput,
): RegOp => ({ process: p, input, callMs, returnMs, output: returnMs === undefined ? undefined : output });

export const write = (
  p: number,
  value: string,
  from: number,
  to: number | undefined,
  version?: number,
): RegOp => op(p, { f: 'write', value }, from, to, version === undefined ? undefined : { ok: true, version });
export const read = (
  p: number,
  from: number,
  to: number,
  value: string | undefined,
  version: number,
): RegOp =>
  op(p, { f: 'read' }, from, to, value === undefined ? { ok: true, version } : { ok: true, value, version });
export const cas = (
  p: number,
  expectVersion: number,
  value: string,
  from: number,
  to: number | undefined,
  output?: RegisterOutput,
): RegOp => op(p, { f: 'cas', expectVersion, value }, from, to, output);
export const del = (p: number, from: number, to: number | undefined, version?: number): RegOp =>
  op(p, { f: 'delete' }, from, to, version === undefined ? undefined : { ok: true, version });

export const check = (history: readonly RegOp[]) => checkLinearizable(registerModel, history);

/** A plain read/write register of small integers (no versions), as in the textbook examples. */
export type PlainInput = { f: 'r' } | { f: 'w'; v: number };
export const plainModel: Model<number, PlainInput, number | null> = {
  init: 0,
  step: (s, i, o) =>
    i.f === 'w'
      ? o === undefined || o === null
        ? i.v
        : undefined
      : o === undefined || o === s
        ? s
        : undefined,
  key: (s) => String(s),
};
export type PlainOp = Operation<PlainInput, number | null>;
export const pw = (p: number, v: number, from: number, to: number | undefined): PlainOp => ({
  process: p,
  input: { f: 'w', v },
  callMs: from,
  returnMs: to,
  output: to === undefined ? undefined : null,
});
export const pr = (p: number, from: number, to: number, v: number): PlainOp => ({
  process: p,
  input: { f: 'r' },
  callMs: from,
  returnMs: to,
  output: v,
});
