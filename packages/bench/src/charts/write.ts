/** Reads paper runs from the results directory and writes their charts as SVG files. */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PaperReport } from '../paper/results.js';
import { type ChartSources, paperCharts } from './paper-charts.js';

/** Paper runs are written as paper-<ISO time>.json, so names sort by time. */
const PAPER_RUN = /^paper-.*\.json$/;

/** For each experiment, the latest run in `dir` that has it. */
export async function latestSources(dir: string): Promise<ChartSources> {
  const names = (await readdir(resolve(dir)).catch(() => [] as string[]))
    .filter((n) => PAPER_RUN.test(n))
    .sort()
    .reverse();
  const sources: ChartSources = {};
  for (const name of names) {
    const report = JSON.parse(await readFile(join(resolve(dir), name), 'utf8')) as PaperReport;
    if (report.kind !== 'paper') continue;
    if (report.fig8 !== undefined) sources.fig8 ??= report;
    if (report.divergence !== undefined) sources.divergence ??= report;
    if (report.coordination !== undefined) sources.table2 ??= report;
    if (report.durability !== undefined) sources.fig5 ??= report;
  }
  return sources;
}

/** Writes the charts of `sources` into `imagesDir`; returns the paths written. */
export async function writeCharts(sources: ChartSources, imagesDir: string): Promise<string[]> {
  const dir = resolve(imagesDir);
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const file of paperCharts(sources)) {
    const path = join(dir, file.name);
    await writeFile(path, file.svg);
    written.push(path);
  }
  return written;
}
