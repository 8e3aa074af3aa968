/**
 * The speed probe on a worker thread (speed-probe.ts `speedProbeMsOffThread`): times the fixed load
 * and posts the milliseconds to its parent, so that a soak can probe the machine every window while
 * its own event loop keeps driving the load.
 */
import { parentPort } from 'node:worker_threads';
import { speedProbeMs } from './speed-probe.js';

parentPort?.postMessage(speedProbeMs());
