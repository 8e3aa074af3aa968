/**
 * A one-node fake of the strong-key HTTP API (/tmp/strong/contract.md) for unit tests: versions,
 * If-Match / If-None-Match, transactions with clientRequestToken replay, transactGet; keys outside
 * its strong namespaces answer as plain keys. Every request is logged with its headers and body;
 * `script` replaces the next answers (or drops the connection after applying the request).
 */
import {
  type Transport,
  TransportFailure,
  type TransportRequest,
  type TransportResponse,
} from '../src/index.js';

interface Entry {
  value?: unknown;
  version: number;
}

interface Condition {
  readonly ifVersion?: string;
  readonly ifAbsent?: true;
  readonly ifExists?: true;
}

interface Action {
  readonly type: 'put' | 'delete' | 'conditionCheck';
  readonly key: string;
  readonly value?: unknown;
  readonly condition?: Condition;
}

/**
 * A scripted answer; a connection that drops after the request was applied ('reset') or before
 * ('drop'); or the store's own answer ('pass').
 */
export type Scripted = TransportResponse | 'reset' | 'drop' | 'pass';

export interface Logged {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export class StrongStore implements Transport {
  readonly url = 'http://strong.test:7000';
  readonly entries = new Map<string, Entry>();
  readonly log: Logged[] = [];
  readonly script: Scripted[] = [];
  /** Transactions by token: their actions (JSON) and the answer given. */
  readonly tokens = new Map<string, { actions: string; answer: TransportResponse }>();
  /** Called before a write is applied, as a concurrent writer would act. */
  beforeWrite: ((key: string) => void) | undefined;

  constructor(private readonly namespaces: readonly string[] = ['stock', 'orders', 'accounts']) {}

  /** Sets a key as another client's write would (version + 1). */
  write(key: string, value: unknown): void {
    const entry = this.entries.get(key) ?? { version: 0 };
    this.entries.set(key, { value, version: entry.version + 1 });
  }

  version(key: string): string {
    return String(this.entries.get(key)?.version ?? 0);
  }

  writes(method?: string): Logged[] {
    return this.log.filter((l) => l.method !== 'GET' && (method === undefined || l.method === method));
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const url = new URL(req.url);
    const body = req.body === undefined ? undefined : (JSON.parse(req.body) as unknown);
    this.log.push({
      method: req.method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers ?? {},
      body,
    });
    const scripted = this.script.shift();
    if (scripted === 'drop') throw new TransportFailure('socket hang up', true);
    if (scripted === 'reset') {
      this.answer(req.method, url, body, req.headers ?? {});
      throw new TransportFailure('socket hang up', true);
    }
    if (scripted !== undefined && scripted !== 'pass') return scripted;
    return this.answer(req.method, url, body, req.headers ?? {});
  }

  private answer(
    method: string,
    url: URL,
    body: unknown,
    headers: Readonly<Record<string, string>>,
  ): TransportResponse {
    if (url.pathname === '/v1/transactions')
      return this.transact(body as { clientRequestToken: string; actions: Action[] });
    if (url.pathname === '/v1/transactions/get') return this.transactGet((body as { keys: string[] }).keys);
    const key = decodeURIComponent(url.pathname.slice('/v1/kv/'.length));
    if (!this.strong(key)) return json(200, method === 'GET' ? { key, siblings: [] } : { context: 'c1' });
    const entry = this.entries.get(key) ?? { version: 0 };
    const found = 'value' in entry;
    if (method === 'GET') {
      if (found)
        return json(200, { key, value: entry.value, version: String(entry.version), consistency: 'strong' });
      if (url.searchParams.get('missing') === 'ok')
        return json(200, { key, version: String(entry.version), consistency: 'strong' });
      return error(404, 'NOT_FOUND', { version: String(entry.version) });
    }
    const ifMatch = headers['if-match']?.replace(/"/g, '');
    const condition: Condition =
      ifMatch !== undefined
        ? { ifVersion: ifMatch }
        : headers['if-none-match'] === '*'
          ? { ifAbsent: true }
          : {};
    this.beforeWrite?.(key);
    const now = this.entries.get(key) ?? { version: 0 };
    if (!holds(condition, now))
      return error(412, 'PRECONDITION_FAILED', { currentVersion: String(now.version) });
    if (method === 'PUT')
      this.entries.set(key, { value: (body as { value: unknown }).value, version: now.version + 1 });
    else if ('value' in now) this.entries.set(key, { version: now.version + 1 });
    return json(200, { key, version: this.version(key), consistency: 'strong' });
  }

  private transact(body: { clientRequestToken: string; actions: Action[] }): TransportResponse {
    const actions = JSON.stringify(body.actions);
    const seen = this.tokens.get(body.clientRequestToken);
    if (seen !== undefined) {
      return seen.actions === actions ? seen.answer : error(400, 'IDEMPOTENT_PARAMETER_MISMATCH', {});
    }
    const reasons = body.actions.map((a) => {
      const now = this.entries.get(a.key) ?? { version: 0 };
      return a.condition === undefined || holds(a.condition, now)
        ? { code: 'None' }
        : { code: 'ConditionalCheckFailed', currentVersion: String(now.version) };
    });
    let answer: TransportResponse;
    if (reasons.some((r) => r.code !== 'None')) {
      answer = error(409, 'TRANSACTION_CANCELED', { cancellationReasons: reasons });
    } else {
      for (const a of body.actions) {
        const now = this.entries.get(a.key) ?? { version: 0 };
        if (a.type === 'put') this.entries.set(a.key, { value: a.value, version: now.version + 1 });
        if (a.type === 'delete') this.entries.set(a.key, { version: now.version + 1 });
      }
      const versions = Object.fromEntries(body.actions.map((a) => [a.key, this.version(a.key)]));
      answer = json(200, { committed: true, versions });
    }
    this.tokens.set(body.clientRequestToken, { actions, answer });
    return answer;
  }

  private transactGet(keys: string[]): TransportResponse {
    const items = keys.map((key) => {
      const entry = this.entries.get(key) ?? { version: 0 };
      return 'value' in entry
        ? { key, found: true, value: entry.value, version: String(entry.version) }
        : { key, found: false, version: String(entry.version) };
    });
    return json(200, { items });
  }

  private strong(key: string): boolean {
    return this.namespaces.some((ns) => key.startsWith(`${ns}/`));
  }
}

function holds(condition: Condition, entry: Entry): boolean {
  if (condition.ifVersion !== undefined) return condition.ifVersion === String(entry.version);
  if (condition.ifAbsent === true) return !('value' in entry);
  if (condition.ifExists === true) return 'value' in entry;
  return true;
}

export function json(status: number, body: unknown): TransportResponse {
  return { status, text: JSON.stringify(body) };
}

export function error(status: number, code: string, details: Record<string, unknown>): TransportResponse {
  return json(status, { error: { code, message: `fake ${code}`, details } });
}
