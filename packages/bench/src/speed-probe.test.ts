import { describe, expect, it } from 'vitest';
import { speedProbeMs } from './speed-probe.js';

describe('speedProbeMs', () => {
  it('times the fixed load: finite, and long enough that the hashing really ran (over 5 ms)', () => {
    const ms = speedProbeMs();
    expect(Number.isFinite(ms)).toBe(true);
    expect(ms).toBeGreaterThan(5);
  });
});
