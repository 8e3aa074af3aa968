/**
 * The baseline: a bare fastify server in its own process, answering GET with a fixed JSON body and
 * POST by echoing the JSON body it got. Started by the harness; prints `{"port":N}` once listening.
 */
import Fastify from 'fastify';
import { BARE_PATH } from './drivers.js';

const port = Number(process.argv[2] ?? '0');
const valueBytes = Number(process.argv[3] ?? '150');
const value = 'x'.repeat(Math.max(0, valueBytes - 2));

const app = Fastify({ logger: false });
app.get(BARE_PATH, async () => ({ value }));
app.post(BARE_PATH, async (req) => req.body);

const address = await app.listen({ host: '127.0.0.1', port });
process.stdout.write(`${JSON.stringify({ port: Number(new URL(address).port) })}\n`);
const stop = (): void => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
