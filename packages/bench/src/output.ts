/** Writes a run's results: <dir>/<start time>.json (everything) and .md (the tables). */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { renderMarkdown } from './report.js';
import type { BenchReport } from './results.js';

export interface WrittenFiles {
  readonly jsonPath: string;
  readonly markdownPath: string;
}

export async function writeResults(report: BenchReport, dir: string): Promise<WrittenFiles> {
  const outDir = resolve(dir);
  await mkdir(outDir, { recursive: true });
  const stem = join(outDir, report.startedAt.replace(/[:.]/g, '-'));
  const jsonPath = `${stem}.json`;
  const markdownPath = `${stem}.md`;
  await writeFile(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(markdownPath, renderMarkdown(report));
  return { jsonPath, markdownPath };
}
