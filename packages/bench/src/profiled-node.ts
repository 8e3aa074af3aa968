#!/usr/bin/env node
/**
 * Runs the `tessera` CLI with V8's CPU profiler, as `node --cpu-prof` would (that flag is not
 * allowed in NODE_OPTIONS, and LocalNode spawns `node <cli> start …`), but only over the part that
 * matters: profiling starts on SIGUSR2 (the harness sends it when the first measured phase begins)
 * and the profile is written to $TESSERA_CPU_PROF_DIR/<node>-<pid>.cpuprofile on SIGTERM or SIGINT.
 * Usage: node profiled-node.js start --node-id … (the same arguments as the tessera CLI).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { CPU_PROF_DIR_ENV } from './profile.js';

/** Sampling interval, as --cpu-prof-interval (default 1000 µs). */
const SAMPLE_INTERVAL_US = 1000;

const dir = process.env[CPU_PROF_DIR_ENV] ?? '.';
const nodeId = process.argv[process.argv.indexOf('--node-id') + 1] ?? 'node';
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: SAMPLE_INTERVAL_US });

let started = false;
let written = false;
process.on('SIGUSR2', () => {
  if (started) return;
  started = true;
  void session.post('Profiler.start');
});
const writeProfile = async (): Promise<void> => {
  if (!started || written) return;
  written = true;
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(join(dir, `${nodeId}-${process.pid}.cpuprofile`), JSON.stringify(profile));
  session.disconnect();
};
process.once('SIGTERM', () => void writeProfile());
process.once('SIGINT', () => void writeProfile());

// The CLI reads process.argv.slice(2): this script stands where its path would. It runs the compiled
// modules (dist/cli), not the bundled `tessera` (dist/bin) that nodes run otherwise: the same code,
// but a profile then names each function's own file instead of a bundle chunk.
await import(new URL('dist/cli/main.js', import.meta.resolve('@tessera/server/package.json')).href);
