/** src/http/strong-schemas.ts: a bad transaction body is refused with a message that says what to send. */
import { describe, expect, it } from 'vitest';
import { parseInput } from '../src/http/schemas.js';
import { transactBodySchema } from '../src/http/strong-schemas.js';

function refusal(body: unknown): string {
  try {
    parseInput(transactBodySchema, body, 'body');
  } catch (err) {
    expect((err as { code?: string }).code).toBe('BAD_REQUEST');
    return (err as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`);
}

const check = (condition: unknown) => ({ actions: [{ type: 'conditionCheck', key: 'stock/a', condition }] });

describe('a transaction body refused', () => {
  it('names the three conditions there are when a condition is none of them', () => {
    for (const condition of [{}, { ifAbsent: true, ifExists: true }, { ifAbsent: false }, 'x', undefined])
      expect(refusal(check(condition))).toContain(
        'a condition is one of {"ifVersion": "<version>"}, {"ifAbsent": true} or {"ifExists": true}',
      );
  });

  it('says what a version is when ifVersion is not one', () => {
    expect(refusal(check({ ifVersion: 'abc' }))).toContain(
      'ifVersion: a version is the decimal string a read returned',
    );
  });
});
