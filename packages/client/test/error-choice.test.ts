/**
 * Errors that tell the truth (issue 15, part 3), against fake nodes: a value JSON cannot hold is
 * INVALID_VALUE before anything is sent; a call reports its most informative failure, not its
 * last; a coordinator's verdict on the replicas is asked of one other node only; `maybeApplied`
 * holds if any attempt may have applied the write; `deadlineMs` bounds a call and an update.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Deadline, informativeness, mostInformative } from '../src/http/retry.js';
import { type RequestEvent, TesseraClient, TesseraError } from '../src/index.js';
import { kvPath } from '../src/kv.js';
import { FakeNodes } from './fake-nodes.js';

const IDS = ['a', 'b', 'c'];
const clients: TesseraClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function setup(options: { deadlineMs?: number; retries?: number } = {}) {
  const fake = new FakeNodes({ ids: IDS, n: 3, publishRing: true });
  const events: RequestEvent[] = [];
  const client = new TesseraClient({
    nodes: IDS.map((id) => fake.url(id)),
    transport: fake,
    backoff: { baseMs: 1, maxMs: 2 },
    onRequest: (e) => events.push(e),
    ...options,
  });
  clients.push(client);
  return { fake, client, events };
}

async function failure(promise: Promise<unknown>): Promise<TesseraError> {
  try {
    await promise;
  } catch (err) {
    expect(TesseraError.is(err), String(err)).toBe(true);
    return err as TesseraError;
  }
  throw new Error('expected the call to fail');
}

const insufficient = { kind: 'error', status: 503, code: 'INSUFFICIENT_REPLICAS' } as const;

describe('values JSON cannot hold', () => {
  it('are INVALID_VALUE before any request: no attempt, no node marked down, no retry', async () => {
    const { fake, client, events } = setup();
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    for (const value of [{ n: 1n }, circular, () => 1, Symbol('s')]) {
      const err = await failure(client.put('k', value));
      expect(err).toMatchObject({ code: 'INVALID_VALUE', httpStatus: 400, key: 'k', maybeApplied: false });
    }
    expect(fake.log.filter((l) => l.method === 'PUT')).toEqual([]);
    expect(events).toEqual([]);
    expect(client.stats().nodesDown).toEqual([]);
  });

  it('end an update at once: its read is made once, its write never', async () => {
    const { fake, client } = setup();
    const err = await failure(client.update('k', () => ({ big: 10n })));
    expect(err.code).toBe('INVALID_VALUE');
    expect(fake.log.filter((l) => l.url.includes('/v1/kv/')).map((l) => l.method)).toEqual(['GET']);
  });
});

describe('the most informative failure', () => {
  it("an r=3 read that got INSUFFICIENT_REPLICAS, then refused connections, reports the node's verdict", async () => {
    const { fake, client } = setup();
    await client.refreshRing();
    const key = 'user/1';
    const [first, ...others] = fake.replicas(key);
    fake.faults.set(first!, insufficient);
    for (const id of others) fake.faults.set(id, { kind: 'refuse' });
    const err = await failure(client.get(key, { r: 3 }));
    expect(err).toMatchObject({ code: 'INSUFFICIENT_REPLICAS', httpStatus: 503, nodeId: first, attempts: 3 });
    expect(err.message).toMatch(/Other attempts: [bc] NODE_UNREACHABLE, [bc] NODE_UNREACHABLE\./);
  });

  it('asks one other coordinator after a verdict, then stops: two verdicts agree', async () => {
    const { fake, client } = setup({ retries: 5 });
    for (const id of IDS) fake.faults.set(id, insufficient);
    const err = await failure(client.get('k'));
    expect(err).toMatchObject({ code: 'INSUFFICIENT_REPLICAS', attempts: 2, maybeApplied: false });
    expect(new Set(fake.log.filter((l) => l.url.includes('/v1/kv/')).map((l) => l.nodeId)).size).toBe(2);
  });

  it('never resends what no other node answers differently (4xx, 501)', async () => {
    const { fake, client } = setup({ retries: 5 });
    for (const [status, code] of [
      [409, 'TOO_MANY_SIBLINGS'],
      [413, 'VALUE_TOO_LARGE'],
      [409, 'CLOCK_TOO_LARGE'],
      [400, 'INVALID_CONTEXT'],
    ] as const) {
      for (const id of IDS) fake.faults.set(id, { kind: 'error', status, code });
      const puts = () => fake.log.filter((l) => l.method === 'PUT').length;
      const before = puts();
      expect(await failure(client.put('k', 1))).toMatchObject({ code, attempts: 1, maybeApplied: false });
      expect(puts() - before).toBe(1);
    }
    for (const id of IDS) fake.faults.set(id, { kind: 'error', status: 501, code: 'NOT_SUPPORTED' });
    expect(await failure(client.get('k'))).toMatchObject({ code: 'NOT_SUPPORTED', attempts: 1 });
  });

  it('says a write may have landed if any attempt may have applied it', async () => {
    const { fake, client } = setup();
    await client.refreshRing();
    const key = 'user/2';
    const [first, second] = fake.replicas(key);
    fake.faults.set(first!, { kind: 'error', status: 503, code: 'OVERLOADED' });
    fake.faults.set(second!, { kind: 'reset' });
    const err = await failure(client.put(key, 1));
    // The refusal came first and did nothing; the reset may have applied the write, and ended the call.
    expect(err).toMatchObject({ code: 'CONNECTION_FAILED', maybeApplied: true, attempts: 2, nodeId: second });
  });

  it('ranks a verdict over other answers, answers over transport failures, sent over not sent', () => {
    const e = (code: string, httpStatus?: number) =>
      new TesseraError(code, code, httpStatus === undefined ? {} : { httpStatus });
    const ranked = [
      e('NODE_UNREACHABLE'),
      e('CONNECTION_FAILED'),
      e('BAD_RESPONSE', 502),
      e('OVERLOADED', 503),
      e('TIMEOUT', 504),
    ];
    expect(ranked.map(informativeness)).toEqual([0, 1, 2, 3, 4]);
    for (let i = 0; i < ranked.length; i++) {
      const shuffled = [...ranked.slice(i), ...ranked.slice(0, i)];
      expect(mostInformative(shuffled, { attempts: 5 }).code).toBe('TIMEOUT');
    }
    const chosen = mostInformative([e('OVERLOADED', 503), e('INSUFFICIENT_REPLICAS', 503)], { attempts: 2 });
    expect(chosen).toMatchObject({ code: 'INSUFFICIENT_REPLICAS', attempts: 2 });
  });
});

describe('deadlineMs', () => {
  it('bounds a call across attempts, and a timeout it imposed does not mark the node down', async () => {
    const { fake, client } = setup();
    for (const id of IDS) fake.faults.set(id, { kind: 'hang' });
    const started = Date.now();
    const err = await failure(client.get('k', { timeoutMs: 10_000, deadlineMs: 200 }));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(err.code).toBe('REQUEST_TIMEOUT');
    expect(err.message).toContain('deadlineMs 200');
    expect(client.stats().nodesDown).toEqual([]);
  });

  it('reports the most informative failure when the deadline ends the call', async () => {
    const { fake, client } = setup({ deadlineMs: 300 });
    await client.refreshRing();
    const key = 'user/3';
    const [first, ...others] = fake.replicas(key);
    fake.faults.set(first!, insufficient);
    for (const id of others) fake.faults.set(id, { kind: 'hang' });
    const started = Date.now();
    const err = await failure(client.get(key, { timeoutMs: 10_000 }));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(err).toMatchObject({ code: 'INSUFFICIENT_REPLICAS', nodeId: first, attempts: 2 });
    expect(err.message).toContain("The call's deadline (deadlineMs 300) passed after 2 attempts.");
  });

  it('bounds a whole update, backoff included, and reports its most informative failure', async () => {
    const { fake, client } = setup();
    for (const id of IDS) fake.faults.set(id, insufficient);
    const started = Date.now();
    const err = await failure(client.update('k', (v) => v, { retries: 1_000, deadlineMs: 400 }));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(err.code).toBe('INSUFFICIENT_REPLICAS');
    expect(err.message).toMatch(/deadline \(deadlineMs 400\) passed/);
  });

  it('an update with every node hanging fails within its deadline too', async () => {
    const { fake, client } = setup({ deadlineMs: 300 });
    for (const id of IDS) fake.faults.set(id, { kind: 'hang' });
    const started = Date.now();
    const err = await failure(client.update('k', (v) => v, { timeoutMs: 10_000 }));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(err.code).toBe('REQUEST_TIMEOUT');
  });

  it('is checked: a whole number of ms, at least 1', async () => {
    const { client } = setup();
    expect(await failure(client.get('k', { deadlineMs: 0 }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(() => new TesseraClient({ nodes: ['http://a.test:7000'], deadlineMs: 1.5 })).toThrow(/deadlineMs/);
  });

  it('Deadline counts down, and has none by default', () => {
    let now = 1_000;
    const d = new Deadline(100, () => now);
    expect(d.remaining()).toBe(100);
    now += 100;
    expect(d.passed()).toBe(true);
    expect(new Deadline(undefined).remaining()).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('keys URL normalisation would eat', () => {
  it('sends `.` and `..` as ?key= and every other key as a percent-encoded segment', () => {
    expect(kvPath('.')).toBe('/v1/kv/?key=.');
    expect(kvPath('..', { r: 2 })).toBe('/v1/kv/?key=..&r=2');
    expect(kvPath('%2E')).toBe('/v1/kv/%252E');
    expect(kvPath('a/b', { missing: 'ok' })).toBe('/v1/kv/a%2Fb?missing=ok');
    for (const key of ['.', '..', '...', '%2e%2e', './x', 'a/..', '?#&']) {
      const url = new URL(`http://h:7000${kvPath(key)}`);
      const sent =
        url.pathname === '/v1/kv/' ? url.searchParams.get('key') : decodeURIComponent(url.pathname.slice(7));
      expect(sent, key).toBe(key);
    }
  });
});
