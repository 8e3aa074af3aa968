/**
 * `pnpm bench paper`: the experiments of the Dynamo paper's section 6, one after another, each
 * against its own local cluster (Figure 8 is a pure simulation), then the report and charts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { machineInfo } from '../machine.js';
import { currentRevision } from '../revision.js';
import { runCoordination } from './coordination.js';
import { runDivergence } from './divergence.js';
import { runDurability } from './durability.js';
import { runFig8 } from './fig8.js';
import type { ExperimentIo } from './kit.js';
import type { PaperOptions } from './options.js';
import { renderPaperMarkdown } from './report.js';
import type { PaperReport } from './results.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export async function runPaper(options: PaperOptions, io: ExperimentIo): Promise<PaperReport> {
  const startedAt = new Date().toISOString();
  const loadAverageStart = loadavg();
  const revision = await currentRevision();
  const parts: Mutable<Pick<PaperReport, 'fig8' | 'divergence' | 'coordination' | 'durability'>> = {};
  for (const experiment of options.only) {
    if (io.signal.aborted) break;
    io.log(`\n== ${experiment} ==`);
    if (experiment === 'fig8') {
      parts.fig8 = runFig8(options.fig8);
      io.log(`Simulated in ${(parts.fig8.elapsedMs / 1000).toFixed(1)} s.`);
    }
    if (experiment === 'divergence') parts.divergence = await runDivergence(options.divergence, io);
    if (experiment === 'table2') parts.coordination = await runCoordination(options.coordination, io);
    if (experiment === 'fig5') parts.durability = await runDurability(options.durability, io);
  }
  return {
    kind: 'paper',
    startedAt,
    finishedAt: new Date().toISOString(),
    revision,
    machine: machineInfo(loadAverageStart),
    quick: options.quick,
    ...parts,
  };
}

export async function writePaperResults(
  report: PaperReport,
  dir: string,
): Promise<{ jsonPath: string; markdownPath: string }> {
  const outDir = resolve(dir);
  await mkdir(outDir, { recursive: true });
  const stem = join(outDir, `paper-${report.startedAt.replace(/[:.]/g, '-')}`);
  await writeFile(`${stem}.json`, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(`${stem}.md`, renderPaperMarkdown(report));
  return { jsonPath: `${stem}.json`, markdownPath: `${stem}.md` };
}
