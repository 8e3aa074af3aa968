import { describe, expect, it } from 'vitest';
import { forwardOrder } from './forward.js';

const replicas = ['a', 'b', 'c'];
const up = () => false;

describe('forwardOrder', () => {
  it('coordinates here when this node is a replica and the context names no other live replica', () => {
    expect(forwardOrder('a', undefined, replicas, up)).toBeUndefined();
    expect(forwardOrder('a', 'a', replicas, up)).toBeUndefined();
    expect(forwardOrder('a', 'z', replicas, up)).toBeUndefined();
    expect(forwardOrder('a', 'b', replicas, (n) => n === 'b')).toBeUndefined();
  });

  it("goes to the context's coordinator alone from a replica, first and then the others from a non-replica", () => {
    expect(forwardOrder('a', 'b', replicas, up)).toEqual(['b']);
    expect(forwardOrder('z', 'b', replicas, up)).toEqual(['b', 'a', 'c']);
    expect(forwardOrder('z', undefined, replicas, up)).toEqual(['a', 'b', 'c']);
  });
});
