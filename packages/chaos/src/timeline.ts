/**
 * The timeline: one self-contained HTML file with an SVG of the run. Fault windows on top (one
 * lane per kind), then one lane per worker with its ops (green ok, grey fail, orange info: each
 * pixel column shows the worst outcome in it), and red marks on the ops the checker found at
 * fault. Hover a bar for its details. Phases (heal, settled, final reads) are vertical lines.
 */
import { faultWindows } from './checker/faults.js';
import type { CheckReport, OpRef } from './checker/types.js';
import {
  type CompletedOp,
  completedOps,
  type HistoryEvent,
  lastEventMs,
  type PhaseEvent,
} from './history.js';

const WIDTH_PX = 1400;
const LEFT_PX = 110;
const LANE_PX = 16;
const COLORS = { ok: '#3a3', fail: '#999', info: '#e90', fault: '#c33', mark: '#d00' } as const;
const RANK = { ok: 0, fail: 1, info: 2 } as const;

interface Mark {
  readonly process: string;
  readonly atMs: number;
  readonly what: string;
}

export function renderTimeline(events: readonly HistoryEvent[], report: CheckReport, title: string): string {
  const endMs = lastEventMs(events, 1);
  const x = (ms: number): number => LEFT_PX + (ms / endMs) * (WIDTH_PX - LEFT_PX - 10);
  const faults = faultWindows(events);
  const kinds = [...new Set(faults.map((f) => f.kind))].sort();
  const ops = completedOps(events);
  const processes = [...new Set(ops.map((op) => op.process))].sort();
  const marks = violationMarks(report);
  const lanes = [...kinds.map((k) => `fault: ${k}`), ...processes];
  const heightPx = 30 + lanes.length * LANE_PX + 20;
  const laneY = (i: number): number => 30 + i * LANE_PX;
  const parts: string[] = [];
  lanes.forEach((name, i) => {
    parts.push(`<text x="4" y="${laneY(i) + 11}" class="lane">${esc(name)}</text>`);
    parts.push(
      `<line x1="${LEFT_PX}" x2="${WIDTH_PX - 10}" y1="${laneY(i) + LANE_PX}" y2="${laneY(i) + LANE_PX}" class="grid"/>`,
    );
  });
  for (const f of faults) {
    const y = laneY(kinds.indexOf(f.kind)) + 2;
    const w = Math.max(2, x(f.endMs) - x(f.startMs));
    parts.push(
      `<rect x="${x(f.startMs).toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${LANE_PX - 4}" fill="${COLORS.fault}" opacity="0.7"><title>${esc(`${f.kind} ${f.detail}\n${seconds(f.startMs)} to ${seconds(f.endMs)}`)}</title></rect>`,
    );
  }
  processes.forEach((process, i) => {
    const y = laneY(kinds.length + i) + 3;
    parts.push(
      ...opRuns(
        ops.filter((op) => op.process === process),
        x,
        y,
      ),
    );
  });
  for (const mark of marks) {
    const lane = processes.indexOf(mark.process);
    if (lane < 0) continue;
    const cx = x(mark.atMs);
    const y = laneY(kinds.length + lane);
    parts.push(
      `<path d="M${cx.toFixed(1)} ${y} l-5 -7 h10 z" fill="${COLORS.mark}"><title>${esc(mark.what)}</title></path>`,
    );
  }
  for (const phase of events.filter((e): e is PhaseEvent => e.kind === 'phase')) {
    const px = x(phase.atMs).toFixed(1);
    parts.push(`<line x1="${px}" x2="${px}" y1="16" y2="${heightPx - 16}" class="phase"/>`);
    parts.push(`<text x="${px}" y="12" class="phase-label">${esc(phase.phase)}</text>`);
  }
  for (let s = 0; s * 1000 <= endMs; s += tickStepS(endMs)) {
    parts.push(`<text x="${x(s * 1000).toFixed(1)}" y="${heightPx - 4}" class="tick">${s}s</text>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH_PX}" height="${heightPx}" viewBox="0 0 ${WIDTH_PX} ${heightPx}">${parts.join('')}</svg>`;
  return page(title, svg, report);
}

/** Ops of one lane as runs of pixel columns of the same (worst) outcome. */
function opRuns(ops: readonly CompletedOp[], x: (ms: number) => number, y: number): string[] {
  const columns = new Map<number, CompletedOp>();
  for (const op of ops) {
    for (let px = Math.floor(x(op.invokeMs)); px <= Math.floor(x(op.completeMs)); px++) {
      const seen = columns.get(px);
      if (seen === undefined || RANK[op.status] > RANK[seen.status]) columns.set(px, op);
    }
  }
  const out: string[] = [];
  const sorted = [...columns.keys()].sort((a, b) => a - b);
  let i = 0;
  while (i < sorted.length) {
    const startPx = sorted[i]!;
    const first = columns.get(startPx)!;
    let j = i;
    while (
      j + 1 < sorted.length &&
      sorted[j + 1] === sorted[j]! + 1 &&
      columns.get(sorted[j + 1]!)!.status === first.status
    )
      j++;
    const width = sorted[j]! - startPx + 1;
    const tip = `${first.workload} ${first.f} ${first.key} ${JSON.stringify(first.value)}: ${first.status}${'error' in first && first.error !== undefined ? ` (${first.error})` : ''}`;
    out.push(
      `<rect x="${startPx}" y="${y}" width="${width}" height="${LANE_PX - 6}" fill="${COLORS[first.status]}"><title>${esc(tip)}</title></rect>`,
    );
    i = j + 1;
  }
  return out;
}

function violationMarks(report: CheckReport): Mark[] {
  const fromRef = (r: OpRef<unknown>, what: string): Mark => ({
    process: r.process,
    atMs: r.completeMs,
    what: `${what}: ${r.key} ${JSON.stringify(r.value)}`,
  });
  return [
    ...report.set.lost.map((r) => fromRef(r, 'set: acknowledged add lost')),
    ...report.cart.lost.map((r) => fromRef(r, 'cart: acknowledged add lost')),
    ...report.cart.resurrected.map((r) => fromRef(r, 'cart: removed item came back')),
    ...report.lww.lost.map((r) => fromRef(r, 'lww: acknowledged write lost')),
    ...report.lww.resurrected.map((r) =>
      fromRef(r.by, `lww: ${r.f === 'delete' ? 'deleted' : 'replaced'} version ${r.id} came back`),
    ),
  ];
}

function page(title: string, svg: string, report: CheckReport): string {
  const verdict = report.valid ? 'PASS' : 'FAIL';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body { font: 13px system-ui, sans-serif; margin: 16px; }
.lane, .tick, .phase-label { font: 11px ui-monospace, monospace; fill: #333; }
.grid { stroke: #eee; } .phase { stroke: #36c; stroke-dasharray: 4 3; }
.legend span { display: inline-block; width: 12px; height: 10px; margin: 0 4px 0 12px; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; }
.verdict { font-weight: bold; color: ${report.valid ? '#282' : '#c00'}; }
</style></head><body>
<h1>${esc(title)} <span class="verdict">${verdict}</span></h1>
<p class="legend">ops:<span style="background:${COLORS.ok}"></span>ok<span style="background:${COLORS.fail}"></span>fail (not applied)<span style="background:${COLORS.info}"></span>info (unknown)<span style="background:${COLORS.fault}"></span>fault window<span style="background:${COLORS.mark}"></span>violation</p>
${svg}
<h2>Checker report</h2>
<pre>${esc(JSON.stringify(report, null, 2))}</pre>
</body></html>
`;
}

function tickStepS(endMs: number): number {
  const s = endMs / 1000;
  return s <= 60 ? 5 : s <= 300 ? 15 : s <= 1200 ? 60 : 300;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
