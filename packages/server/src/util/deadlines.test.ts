import { describe, expect, it } from 'vitest';
import { Deadlines } from './deadlines.js';

describe('Deadlines', () => {
  it('fires expired deadlines (never early), skips cancelled ones, and stops its timer when idle', async () => {
    const deadlines = new Deadlines(Date.now, 2);
    const fired: string[] = [];
    const started = Date.now();
    const firedAt = new Map<string, number>();
    const add = (name: string, ms: number) =>
      deadlines.add(ms, () => {
        fired.push(name);
        firedAt.set(name, Date.now() - started);
      });
    add('short', 10);
    const cancel = add('cancelled', 10);
    add('long', 40);
    cancel();
    const deadline = Date.now() + 2_000;
    while (deadlines.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(fired).toEqual(['short', 'long']);
    expect(firedAt.get('short')).toBeGreaterThanOrEqual(10);
    expect(firedAt.get('long')).toBeGreaterThanOrEqual(40);
    expect(deadlines.size).toBe(0);
  });
});
