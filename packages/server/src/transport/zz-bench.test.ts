import { pino } from 'pino';
import { it } from 'vitest';
import { createPeerClient } from './grpc-client.js';
import { startPeerServer } from './grpc-server.js';
import type { PeerApi } from './peer-api.js';

it('bench', async () => {
  const store = new Map<string, Uint8Array>();
  const api: PeerApi = {
    read: async (k) => store.get(k),
    replicate: async (k, s) => void store.set(k, s),
    coordinate: async () => ({ context: 'x' }),
    gossip: async (s) => s,
    join: async () => { throw new Error('no'); },
  };
  const server = await startPeerServer(api, { host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) });
  const client = createPeerClient(`127.0.0.1:${server.port}`);
  const state = new Uint8Array(1024);
  for (const round of [1, 2, 3]) {
    let t = performance.now();
    for (let i = 0; i < 2000; i++) await client.replicate(`k${i}`, state, 2000);
    const seq = performance.now() - t;
    t = performance.now();
    await Promise.all(Array.from({ length: 5000 }, (_, i) => client.replicate(`k${i}`, state, 5000)));
    const par = performance.now() - t;
    t = performance.now();
    const big = new Uint8Array(9000);
    for (let i = 0; i < 200; i++) { await client.replicate('big', big, 2000); await client.read('big', 2000); }
    const bigT = performance.now() - t;
    console.log(`round ${round}: seq 2000 x 1KB: ${(seq / 2000).toFixed(3)} ms/call; parallel 5000: ${(5000 / par * 1000).toFixed(0)} calls/s; 9KB replicate+read: ${(bigT / 400).toFixed(3)} ms/call`);
  }
  client.close();
  await server.close();
}, 120_000);
