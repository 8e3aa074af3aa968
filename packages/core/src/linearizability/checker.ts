/**
 * A linearizability checker: Wing & Gong's search as refined by Lowe ("just-in-time linearizability"),
 * with the memoisation of (set of linearized ops, model state) that Knossos and Porcupine use.
 *
 * The history is a list of operations, each an interval [callMs, returnMs]. It is linearizable when the
 * ops can be put in one sequence, each taking effect at an instant inside its interval, that the
 * sequential `model` accepts with the outputs the clients saw. Ops with no answer (timeout, crash) have
 * `returnMs` undefined: they may have taken effect at any instant after their call, or never.
 *
 * Callers leave out ops that failed definitely (the client knows they did not apply, e.g. a 503 before
 * anything was sent): such an op has no effect to place, and keeping it would let the checker place it.
 *
 * Calls and returns at the same millisecond are taken as concurrent (calls sort first), so coarse
 * clocks can only make the checker more lenient, never report a false violation.
 *
 * The model must be deterministic: `step` gives the one next state for a state, an input and an output.
 * Check each independent object (key) separately (P-compositionality): the search is exponential in the
 * number of concurrent ops in the worst case, and per-key histories keep that number small.
 */

export interface Operation<I, O> {
  /** Client id; one outstanding op per process. Used only in reports. */
  readonly process: number;
  readonly input: I;
  /** Invocation time. */
  readonly callMs: number;
  /** Undefined = no answer (timeout/crash): may or may not have taken effect, at any time after callMs. */
  readonly returnMs: number | undefined;
  /** Undefined when returnMs is undefined (and then ignored); undefined with a returnMs = any output. */
  readonly output: O | undefined;
}

export interface Model<S, I, O> {
  readonly init: S;
  /** Applies input to state: the outputs it could give and the next state; undefined when `output` is impossible from `state`. */
  step(state: S, input: I, output: O | undefined): S | undefined;
  /** A string that identifies the state, for memoisation: equal keys must mean equal states. */
  key(state: S): string;
}

export interface LinearizabilityResult {
  ok: boolean;
  /** When not ok: the longest linearizable prefix found and the ops that could not be placed, for a report */
  explanation?: string;
  /** true when the search was cut off by the budget */
  unknown?: boolean;
}

export const STEPS_MAX_DEFAULT = 2_000_000;

/** A call or a return in the doubly linked list the search walks; `match` links a call to its return. */
interface Entry {
  readonly id: number;
  readonly call: boolean;
  readonly time: number;
  match: Entry | undefined;
  prev: Entry | undefined;
  next: Entry | undefined;
}

export function checkLinearizable<S, I, O>(
  model: Model<S, I, O>,
  history: readonly Operation<I, O>[],
  options: { stepsMax?: number } = {},
): LinearizabilityResult {
  const stepsMax = options.stepsMax ?? STEPS_MAX_DEFAULT;
  const head = entryList(history);
  const linearized = new LinearizedSet(history, head);
  const cache = new Set<string>();
  const stack: { entry: Entry; state: S; window: Window }[] = [];
  let knownLeft = history.filter((op) => op.returnMs !== undefined).length;
  let state = model.init;
  // The deepest stack seen, for the report; `same` = how much of it the stack still shares.
  const best = { ids: [] as number[], state, same: 0 };
  let entry = head.next;
  let steps = 0;
  while (knownLeft > 0) {
    if (++steps > stepsMax) {
      const why = `search cut off after ${stepsMax} steps (${history.length} ops)`;
      return { ok: false, unknown: true, explanation: `${why}; ${explain(model, history, best)}` };
    }
    // While known ops remain, their returns (which sort before the unknown ones' at +Infinity) are in
    // the list and the scan stops at the first return, so it never runs off the end.
    if (entry === undefined) throw new Error('linearizability: ran off the entry list');
    if (entry.call) {
      const op = history[entry.id]!;
      const next = model.step(state, op.input, op.returnMs === undefined ? undefined : op.output);
      if (next !== undefined) {
        const window = linearized.add(entry.id);
        const key = `${linearized.key()}|${model.key(next)}`;
        if (!cache.has(key)) {
          cache.add(key);
          stack.push({ entry, state, window });
          state = next;
          if (op.returnMs !== undefined) knownLeft--;
          lift(entry);
          if (stack.length > best.ids.length) {
            best.ids.length = best.same;
            for (const frame of stack.slice(best.same)) best.ids.push(frame.entry.id);
            best.same = stack.length;
            best.state = state;
          }
          entry = head.next;
          continue;
        }
        linearized.remove(entry.id, window);
      }
      entry = entry.next;
    } else {
      // A return: its op must take effect before anything later, and nothing fits; undo the last choice.
      const top = stack.pop();
      if (top === undefined) return { ok: false, explanation: explain(model, history, best) };
      best.same = Math.min(best.same, stack.length);
      state = top.state;
      linearized.remove(top.entry.id, top.window);
      if (history[top.entry.id]!.returnMs !== undefined) knownLeft++;
      unlift(top.entry);
      entry = top.entry.next;
    }
  }
  return { ok: true };
}

/** The lowest op (in call order) not linearized and the highest one linearized, among known ops. */
interface Window {
  readonly lo: number;
  readonly hi: number;
}

/**
 * The set of linearized ops, with an exact key of bounded size. Known ops are numbered in call order:
 * every one below `lo` is in the set, and none above `hi`, so `lo` and the bits from `lo` to `hi` say
 * which are. A linearized op cannot be called after a known op not linearized returns, so that window
 * spans only the ops concurrent with op `lo`. Unknown ops (few) keep a full bitset of their own.
 */
class LinearizedSet {
  private readonly slots: number[] = [];
  private readonly known: Uint16Array;
  private readonly unknown: Uint16Array;
  private window: Window = { lo: 0, hi: -1 };

  constructor(
    private readonly history: readonly Operation<unknown, unknown>[],
    head: Entry,
  ) {
    const counts = [0, 0];
    for (let e = head.next; e !== undefined; e = e.next) {
      if (e.call) this.slots[e.id] = counts[history[e.id]!.returnMs === undefined ? 1 : 0]!++;
    }
    this.known = new Uint16Array(Math.ceil(counts[0]! / 16));
    this.unknown = new Uint16Array(Math.ceil(counts[1]! / 16));
  }

  /** Adds op `id`; returns the window before, for `remove`. */
  add(id: number): Window {
    const before = this.window;
    const slot = this.slots[id]!;
    if (this.history[id]!.returnMs === undefined) {
      this.unknown[slot >> 4]! |= 1 << (slot & 15);
      return before;
    }
    this.known[slot >> 4]! |= 1 << (slot & 15);
    let lo = before.lo;
    while (has(this.known, lo)) lo++;
    this.window = { lo, hi: Math.max(before.hi, slot) };
    return before;
  }

  remove(id: number, before: Window): void {
    const slot = this.slots[id]!;
    const bits = this.history[id]!.returnMs === undefined ? this.unknown : this.known;
    bits[slot >> 4]! &= ~(1 << (slot & 15));
    this.window = before;
  }

  /** Decodes uniquely, whatever follows it: the unknown ops' part has a fixed length. */
  key(): string {
    const { lo, hi } = this.window;
    const window = chars(this.known.subarray(lo >> 4, (hi >> 4) + 1));
    return `${lo}:${window.length}:${window}${chars(this.unknown)}`;
  }
}

function has(bits: Uint16Array, slot: number): boolean {
  return (bits[slot >> 4]! & (1 << (slot & 15))) !== 0;
}

/** Words as a string, one UTF-16 code unit each (in chunks: spread arguments are limited). */
function chars(words: Uint16Array): string {
  let s = '';
  for (let i = 0; i < words.length; i += 4096) s += String.fromCharCode(...words.subarray(i, i + 4096));
  return s;
}

/** The sorted list of calls and returns behind a sentinel head; unknown returns go at +Infinity. */
function entryList<I, O>(history: readonly Operation<I, O>[]): Entry {
  const node = (id: number, call: boolean, time: number, match?: Entry): Entry => ({
    id,
    call,
    time,
    match,
    prev: undefined,
    next: undefined,
  });
  const entries: Entry[] = [];
  history.forEach((op, id) => {
    const returnMs = op.returnMs ?? Number.POSITIVE_INFINITY;
    if (Number.isNaN(op.callMs) || Number.isNaN(returnMs) || returnMs < op.callMs) {
      throw new RangeError(`linearizability: op ${id} has a bad interval [${op.callMs}, ${op.returnMs}]`);
    }
    const ret = node(id, false, returnMs);
    entries.push(node(id, true, op.callMs, ret), ret);
  });
  entries.sort((a, b) => a.time - b.time || Number(b.call) - Number(a.call) || a.id - b.id);
  const head = node(-1, false, Number.NEGATIVE_INFINITY);
  let last = head;
  for (const e of entries) {
    last.next = e;
    e.prev = last;
    last = e;
  }
  return head;
}

/** Takes a call and its return out of the list (the op is linearized). */
function lift(call: Entry): void {
  for (const e of [call, call.match!]) {
    e.prev!.next = e.next;
    if (e.next !== undefined) e.next.prev = e.prev;
  }
}

/** Puts them back, in the reverse order, so every link is as it was. */
function unlift(call: Entry): void {
  for (const e of [call.match!, call]) {
    e.prev!.next = e;
    if (e.next !== undefined) e.next.prev = e;
  }
}

const SHOWN_MAX = 12;

/** The longest prefix found, the state it ends in, the op that had to come next and the ops tried there. */
function explain<S, I, O>(
  model: Model<S, I, O>,
  history: readonly Operation<I, O>[],
  best: { ids: readonly number[]; state: S },
): string {
  const placed = new Set(best.ids);
  const left = history.map((op, id) => ({ op, id })).filter(({ id }) => !placed.has(id));
  const due = left
    .filter(({ op }) => op.returnMs !== undefined)
    .reduce<{ op: Operation<I, O>; id: number } | undefined>(
      (a, b) => (a === undefined || b.op.returnMs! < a.op.returnMs! ? b : a),
      undefined,
    );
  const tail = best.ids.slice(-SHOWN_MAX).map((id) => describe(history, id));
  const lines = [
    `longest linearizable prefix: ${best.ids.length} of ${history.length} ops, ending in state ${model.key(best.state)}`,
    `  ${best.ids.length > SHOWN_MAX ? '(last) ' : ''}${tail.join('; ') || '(none)'}`,
  ];
  if (due !== undefined) {
    const tried = left.filter(({ op, id }) => id !== due.id && op.callMs <= due.op.returnMs!);
    lines.push(`  could not place: ${describe(history, due.id)}`);
    const shown = tried.slice(0, SHOWN_MAX).map(({ id }) => describe(history, id));
    if (tried.length > 0)
      lines.push(`  nor one of the ${tried.length} that could go before it: ${shown.join('; ')}`);
  }
  return lines.join('\n');
}

function describe<I, O>(history: readonly Operation<I, O>[], id: number): string {
  const op = history[id]!;
  const output = op.returnMs === undefined ? '?' : (JSON.stringify(op.output) ?? 'unknown');
  return `#${id} p${op.process} ${JSON.stringify(op.input)} -> ${output} [${op.callMs}, ${op.returnMs ?? '∞'}]`;
}
