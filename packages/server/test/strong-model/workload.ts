/**
 * The clients of the strong-key model test and what they saw. Register clients get, put, put with
 * ifVersion and delete `stock/*` keys; bank clients read the `accounts/*` keys (gets or a snapshot)
 * and move money between two of them in a transaction with ifVersion conditions, its token retried
 * on another node after an unknown outcome. Each account's value lists the transfers applied to it.
 * Every op lands in a per-key history of register ops for the linearizability checker: a
 * transaction's put on a key is a cas (or a write) on that key, acknowledged with the version the
 * transaction reported, unknown when no attempt gave a definite answer, left out when cancelled.
 */
import {
  type Condition,
  type Operation,
  type Register,
  type RegisterInput,
  type RegisterOutput,
  TesseraError,
  type TransactionAction,
} from '@tessera/core';
import type { Cluster } from './cluster.js';
import { Down, type NodeParts } from './node.js';
import { ACCOUNT_KEYS, type ClientOp, COLD_KEYS, STOCK_KEYS } from './plan.js';

export type KeyOp = Operation<RegisterInput, RegisterOutput> & { readonly key: string };

export interface Account {
  readonly balance: number;
  /** Ids of the transfers applied, oldest first. */
  readonly applied: readonly string[];
}

export const OPENING_BALANCE = 100;

export function accountOf(register: Register): Account {
  if (register.value === undefined) return { balance: OPENING_BALANCE, applied: [] };
  const parsed = JSON.parse(register.value) as { b: number; t: string[] };
  return { balance: parsed.b, applied: parsed.t };
}

function accountText(account: Account): string {
  return JSON.stringify({ b: account.balance, t: account.applied });
}

export interface Transfer {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  outcome: 'committed' | 'cancelled' | 'unknown';
  versions?: Readonly<Record<string, string>>;
}

export interface Snapshot {
  readonly items: readonly { readonly key: string; readonly register: Register }[];
}

export class Workload {
  readonly history: KeyOp[] = [];
  readonly transfers: Transfer[] = [];
  readonly snapshots: Snapshot[] = [];
  /** Every transaction id ever begun (for the final check of their records). */
  readonly txnIds = new Set<string>();
  private running = 0;

  constructor(private readonly cluster: Cluster) {}

  get done(): boolean {
    return this.running === 0;
  }

  start(clients: readonly (readonly ClientOp[])[], coldAtMs: readonly number[]): void {
    coldAtMs.forEach((atMs, i) => {
      this.running++;
      void this.writeCold(clients.length + i, COLD_KEYS[i]!, atMs).finally(() => this.running--);
    });
    clients.forEach((ops, client) => {
      this.running++;
      void this.client(client, ops).finally(() => this.running--);
    });
  }

  private async client(client: number, ops: readonly ClientOp[]): Promise<void> {
    const lastVersion = new Map<string, number>();
    for (const [seq, op] of ops.entries()) {
      await this.pause(op.thinkMs);
      if (op.kind === 'transfer') await this.transfer(client, `x${client}n${seq}`, op);
      else if (op.kind === 'snapshot') await this.snapshot(client, op.node);
      else await this.register(client, `c${client}n${seq}`, op, lastVersion);
    }
  }

  /** Writes a cold key once, through one node then (if that failed) the next. */
  private async writeCold(process: number, key: string, atMs: number): Promise<void> {
    const value = JSON.stringify(key);
    await this.pause(atMs);
    for (let node = process; node < process + 2; node++) {
      const callMs = this.cluster.sim.now;
      const wrote = await this.on(node, (p, deadline) => p.keys.write(key, value, undefined, deadline));
      if (wrote.ok)
        return this.record(
          { key, process, input: { f: 'write', value }, callMs },
          { ok: true, version: wrote.value.version },
        );
      if (!(wrote.error instanceof Down))
        return this.record({ key, process, input: { f: 'write', value }, callMs });
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) =>
      this.cluster.sim.at(ms, () => {
        resolve();
        return true;
      }),
    );
  }

  /** Runs `run` on node `node`: its result, or Down (never sent), or the error (outcome unknown). */
  private async on<T>(
    node: number,
    run: (parts: NodeParts, deadlineMs: number) => Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
    try {
      return { ok: true, value: await this.cluster.node(node).call<T>(run) };
    } catch (error) {
      return { ok: false, error };
    }
  }

  private record(op: Omit<KeyOp, 'returnMs' | 'output'>, output?: RegisterOutput): void {
    const returnMs = output === undefined ? undefined : this.cluster.sim.now;
    this.history.push({ ...op, returnMs, output });
  }

  private read(process: number, key: string, callMs: number, register: Register): void {
    const output: RegisterOutput =
      register.value === undefined
        ? { ok: true, version: register.version }
        : { ok: true, value: register.value, version: register.version };
    this.record({ key, process, input: { f: 'read' }, callMs }, output);
  }

  private async register(
    process: number,
    id: string,
    op: Extract<ClientOp, { kind: 'get' | 'put' | 'cas' | 'del' }>,
    lastVersion: Map<string, number>,
  ): Promise<void> {
    const key = STOCK_KEYS[op.key]!;
    const callMs = this.cluster.sim.now;
    if (op.kind === 'get') {
      const got = await this.on(op.node, (p, deadline) => p.keys.get(key, deadline));
      if (!got.ok) return;
      lastVersion.set(key, got.value.version);
      return this.read(process, key, callMs, got.value);
    }
    const value = op.kind === 'del' ? undefined : JSON.stringify(id);
    const expect = lastVersion.get(key) ?? 0;
    const condition: Condition | undefined = op.kind === 'cas' ? { ifVersion: String(expect) } : undefined;
    const input: RegisterInput =
      value === undefined
        ? { f: 'delete' }
        : op.kind === 'cas'
          ? { f: 'cas', expectVersion: expect, value }
          : { f: 'write', value };
    const wrote = await this.on(op.node, (p, deadline) => p.keys.write(key, value, condition, deadline));
    if (wrote.ok) {
      lastVersion.set(key, wrote.value.version);
      return this.record({ key, process, input, callMs }, { ok: true, version: wrote.value.version });
    }
    const { error } = wrote;
    if (error instanceof Down) return;
    if (TesseraError.is(error) && error.code === 'PRECONDITION_FAILED') {
      const version = Number(error.details?.currentVersion);
      lastVersion.set(key, version);
      return this.record({ key, process, input, callMs }, { ok: false, version });
    }
    this.record({ key, process, input, callMs });
  }

  /** Reads every account at one instant; undefined if the read failed. */
  private async snapshot(process: number, node: number): Promise<Snapshot | undefined> {
    const callMs = this.cluster.sim.now;
    const got = await this.on(node, (p, deadline) => p.txns.snapshot(ACCOUNT_KEYS, deadline));
    if (!got.ok) return undefined;
    for (const item of got.value) this.read(process, item.key, callMs, item.register);
    const snapshot = { items: got.value };
    this.snapshots.push(snapshot);
    return snapshot;
  }

  private async transfer(
    process: number,
    id: string,
    op: Extract<ClientOp, { kind: 'transfer' }>,
  ): Promise<void> {
    const keys = [op.from, op.to, 3 - op.from - op.to].map((i) => ACCOUNT_KEYS[i]!);
    if (op.from === op.to) return;
    const [from, to, third] = keys as [string, string, string];
    let registers: Register[];
    if (op.snapshot) {
      const snapshot = await this.snapshot(process, op.node);
      if (snapshot === undefined) return;
      registers = keys.map((k) => snapshot.items.find((item) => item.key === k)!.register);
    } else {
      registers = [];
      for (const key of [from, to]) {
        const callMs = this.cluster.sim.now;
        const got = await this.on(op.node, (p, deadline) => p.keys.get(key, deadline));
        if (!got.ok) return;
        this.read(process, key, callMs, got.value);
        registers.push(got.value);
      }
    }
    const [fromReg, toReg, thirdReg] = registers as [Register, Register, Register | undefined];
    const a = accountOf(fromReg);
    const b = accountOf(toReg);
    if (a.balance < op.amount) return;
    const puts: { key: string; value: string; expect?: number }[] = [
      {
        key: from,
        value: accountText({ balance: a.balance - op.amount, applied: [...a.applied, id] }),
        expect: fromReg.version,
      },
      {
        key: to,
        value: accountText({ balance: b.balance + op.amount, applied: [...b.applied, id] }),
        expect: toReg.version,
      },
    ];
    if (op.restock !== null) puts.push({ key: STOCK_KEYS[op.restock]!, value: JSON.stringify(id) });
    const actions: TransactionAction[] = puts.map((p) => ({
      type: 'put',
      key: p.key,
      value: p.value,
      ...(p.expect === undefined ? {} : { condition: { ifVersion: String(p.expect) } }),
    }));
    if (op.check && thirdReg !== undefined) {
      actions.push({
        type: 'conditionCheck',
        key: third,
        condition: { ifVersion: String(thirdReg.version) },
      });
    }
    await this.transact(process, id, { from, to }, actions, puts, op);
  }

  private async transact(
    process: number,
    id: string,
    accounts: { from: string; to: string },
    actions: readonly TransactionAction[],
    puts: readonly { key: string; value: string; expect?: number }[],
    op: Extract<ClientOp, { kind: 'transfer' }>,
  ): Promise<void> {
    const callMs = this.cluster.sim.now;
    const transfer: Transfer = { id, ...accounts, outcome: 'unknown' };
    const token = op.token ? id : undefined;
    const retries = op.token ? op.retries : 0;
    let sent = false;
    for (let attempt = 0; attempt <= retries && transfer.outcome === 'unknown'; attempt++) {
      if (attempt > 0) await this.pause(op.retryAfterMs);
      const node = attempt === 0 ? op.node : op.retryNode + attempt - 1;
      const got = await this.on(node, (p, deadline) => p.txns.transact(actions, token, deadline));
      if (got.ok) {
        transfer.outcome = 'committed';
        transfer.versions = got.value;
      } else if (TesseraError.is(got.error) && got.error.code === 'TRANSACTION_CANCELED') {
        transfer.outcome = 'cancelled';
      } else if (got.error instanceof Down) {
        continue;
      }
      sent = true;
      if (token !== undefined) this.txnIds.add(`t-${token}`);
    }
    if (!sent) return;
    this.transfers.push(transfer);
    if (transfer.outcome === 'cancelled') return;
    for (const p of puts) {
      const input: RegisterInput =
        p.expect === undefined
          ? { f: 'write', value: p.value }
          : { f: 'cas', expectVersion: p.expect, value: p.value };
      const version = transfer.versions?.[p.key];
      this.record(
        { key: p.key, process, input, callMs },
        version === undefined ? undefined : { ok: true, version: Number(version) },
      );
    }
  }
}
