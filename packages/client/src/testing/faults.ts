/**
 * Scripted faults and interleavings for the in-memory node: "fail the next put with
 * INSUFFICIENT_REPLICAS", "fail every get until cleared", "before the next put, let someone else
 * write". Each rule matches an operation (and optionally a key) and lasts a number of calls.
 */

export type MemoryOp = 'get' | 'put' | 'delete';

/** Node answers a fault can give, with their HTTP status (as a node sends them). */
export const NODE_FAULTS = {
  INSUFFICIENT_REPLICAS: 503,
  PEER_UNAVAILABLE: 503,
  NODE_NOT_READY: 503,
  OVERLOADED: 503,
  TIMEOUT: 504,
  TOO_MANY_SIBLINGS: 409,
  CLOCK_TOO_LARGE: 409,
  VALUE_TOO_LARGE: 413,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  STORAGE_FAILURE: 500,
  INTERNAL: 500,
} as const;

/**
 * Failures on the way to the node, which the client reports itself: no connection
 * (NODE_UNREACHABLE), a connection that broke after sending (CONNECTION_FAILED), no answer
 * before the client's `timeoutMs` (REQUEST_TIMEOUT: the call waits for it).
 */
export const TRANSPORT_FAULTS = ['NODE_UNREACHABLE', 'CONNECTION_FAILED', 'REQUEST_TIMEOUT'] as const;

export type MemoryFaultCode = keyof typeof NODE_FAULTS | (typeof TRANSPORT_FAULTS)[number];

export interface RuleOptions {
  /** Only calls on this key. Default: every key. */
  readonly key?: string;
  /** How many matching calls the rule applies to. Default 1; `Infinity` until `clearFaults()`. */
  readonly times?: number;
}

export interface FaultOptions extends RuleOptions {
  /**
   * For a put or delete: the write is applied, then the failure is reported, as when a write
   * reached some replicas but not a quorum. Default false: nothing is written.
   */
  readonly applied?: boolean;
  /** Sent as Retry-After (OVERLOADED, NODE_NOT_READY). Default: none. */
  readonly retryAfterMs?: number;
}

export interface MemoryCall {
  readonly op: MemoryOp;
  readonly key: string;
}

export type Fault = { readonly code: MemoryFaultCode } & Omit<FaultOptions, 'key' | 'times'>;

type Effect = { readonly fail: Fault } | { readonly run: (call: MemoryCall) => void | Promise<void> };

interface Rule {
  readonly ops: readonly MemoryOp[];
  readonly key: string | undefined;
  remaining: number;
  readonly effect: Effect;
}

export class FaultPlan {
  private rules: Rule[] = [];

  add(ops: MemoryOp | '*', effect: Effect, options: RuleOptions): void {
    const times = options.times ?? 1;
    if (!(times >= 1)) throw new RangeError('times is a number >= 1 (Infinity: until cleared).');
    const list: MemoryOp[] = ops === '*' ? ['get', 'put', 'delete'] : [ops];
    this.rules.push({ ops: list, key: options.key, remaining: times, effect });
  }

  /** The actions to run before `call`, in the order they were added (each used once). */
  actionsFor(call: MemoryCall): ((call: MemoryCall) => void | Promise<void>)[] {
    return this.take(call, (e) => 'run' in e).map((e) => ('run' in e ? e.run : () => {}));
  }

  /** The fault for `call`, if a rule has one (the first added wins; it is used once). */
  faultFor(call: MemoryCall): Fault | undefined {
    const [effect] = this.take(call, (e) => 'fail' in e, 1);
    return effect !== undefined && 'fail' in effect ? effect.fail : undefined;
  }

  clear(): void {
    this.rules = [];
  }

  private take(call: MemoryCall, kind: (e: Effect) => boolean, limit = Number.POSITIVE_INFINITY): Effect[] {
    const taken: Effect[] = [];
    for (const rule of this.rules) {
      if (taken.length >= limit) break;
      if (!kind(rule.effect) || !rule.ops.includes(call.op)) continue;
      if (rule.key !== undefined && rule.key !== call.key) continue;
      rule.remaining--;
      taken.push(rule.effect);
    }
    this.rules = this.rules.filter((r) => r.remaining > 0);
    return taken;
  }
}
