import { describe, expect, it } from 'vitest';
import { type CpuProfile, moduleGroup, summarizeProfile } from './profile.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

// root -> handler (server) -> encode (core) -> writev (native); root -> (idle)
const profile: CpuProfile = {
  startTime: 0,
  endTime: 4_000,
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 4] },
    { id: 2, callFrame: frame('handler', 'file:///r/packages/server/dist/http/kv.js', 9), children: [3] },
    { id: 3, callFrame: frame('encode', 'file:///r/packages/core/dist/codec.js', 19), children: [5] },
    { id: 4, callFrame: frame('(idle)') },
    { id: 5, callFrame: frame('writev') },
  ],
  samples: [2, 3, 3, 4, 2, 5],
  timeDeltas: [0, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000],
};

describe('CPU profile summary', () => {
  it('sums self time per function and total time per function on the stack, idle left out', () => {
    const s = summarizeProfile(profile);
    expect(s.sampledUs).toBe(6_000);
    expect(s.busyUs).toBe(5_000);
    expect(s.bySelf.map((f) => [f.name, f.selfUs])).toEqual([
      ['handler packages/server/dist/http/kv.js:10', 2_000],
      ['encode packages/core/dist/codec.js:20', 2_000],
      ['writev', 1_000],
    ]);
    expect(s.byTotal.find((f) => f.name.startsWith('handler'))?.totalUs).toBe(5_000);
    // writev has no module of its own: it counts for its caller's.
    expect(s.groups).toEqual([
      { name: '@tessera/core', selfUs: 3_000 },
      { name: '@tessera/server', selfUs: 2_000 },
    ]);
  });

  it('keeps only samples inside the window', () => {
    expect(summarizeProfile(profile, { fromS: 0.0015, toS: 0.0035 }).sampledUs).toBe(2_000);
  });

  it('groups code by package', () => {
    expect(
      moduleGroup(
        'file:///r/node_modules/.pnpm/@grpc+grpc-js@1.14.7/node_modules/@grpc/grpc-js/build/src/client.js',
        'f',
      ),
    ).toBe('@grpc/grpc-js');
    expect(moduleGroup('node:internal/http2/core', 'request')).toBe('node:http2');
    expect(moduleGroup('node:_http_server', 'f')).toBe('node:http');
    expect(moduleGroup('', '(garbage collector)')).toBe('(garbage collector)');
    expect(moduleGroup('', 'writev')).toBe('(native)');
  });
});
