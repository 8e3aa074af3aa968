import { describe, expect, it } from 'vitest';
import { promised } from './promised.js';

describe('promised', () => {
  it("passes run's promise through as it is", () => {
    const answer = Promise.resolve(3);
    expect(promised(() => answer)).toBe(answer);
  });

  it('turns a synchronous throw into a rejection, never a throw', async () => {
    const failing = (): Promise<number> => {
      throw new Error('refused');
    };
    let answer: Promise<number> | undefined;
    expect(() => {
      answer = promised(failing);
    }).not.toThrow();
    await expect(answer).rejects.toThrow('refused');
  });
});
