/** Line charts (Figure 5 and Figure 8): linear or log x axis, linear y axis, a legend. */
import {
  el,
  formatTick,
  frame,
  legend,
  line,
  linearTicks,
  niceMax,
  num,
  PALETTE,
  svgDocument,
  text,
} from './svg.js';

export interface LineSeries {
  readonly label: string;
  readonly points: readonly (readonly [number, number])[];
  readonly dashed?: boolean;
  readonly color?: string;
}

export interface LineChart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly xScale: 'linear' | 'log';
  /** The y axis range; by default 0 to a round number above the largest value. */
  readonly yMin?: number;
  readonly yMax?: number;
  readonly series: readonly LineSeries[];
}

export function renderLineChart(chart: LineChart): string {
  const f = frame();
  const finite = chart.series
    .flatMap((s) => s.points)
    .filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const xs = finite.map(([x]) => x);
  const log = chart.xScale === 'log';
  const [xMin, xMax] = xRange(xs, log);
  const yMin = chart.yMin ?? 0;
  const yMax = chart.yMax ?? niceMax(Math.max(0, ...finite.map(([, y]) => y)));
  const tx = (x: number): number => {
    const t = log
      ? (Math.log10(x) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))
      : (x - xMin) / (xMax - xMin);
    return f.left + t * (f.right - f.left);
  };
  const ty = (y: number): number => f.bottom - ((y - yMin) / (yMax - yMin)) * (f.bottom - f.top);
  const body: string[] = [];
  for (const y of linearTicks(yMin, yMax, 5)) {
    body.push(line(f.left, ty(y), f.right, ty(y), { stroke: '#e5e5e5' }));
    body.push(text(f.left - 8, ty(y) + 4, formatTick(y), { 'text-anchor': 'end', class: 'y-tick' }));
  }
  for (const x of log ? logTicks(xMin, xMax) : linearTicks(xMin, xMax, 6)) {
    body.push(line(tx(x), f.bottom, tx(x), f.bottom + 5));
    body.push(text(tx(x), f.bottom + 18, formatTick(x), { 'text-anchor': 'middle', class: 'x-tick' }));
  }
  const colors = chart.series.map((s, i) => s.color ?? PALETTE[i % PALETTE.length]!);
  chart.series.forEach((s, i) => {
    const pts = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!log || x > 0));
    if (pts.length === 0) return;
    const dash: Record<string, string> = s.dashed === true ? { 'stroke-dasharray': '6 4' } : {};
    const path = pts.map(([x, y]) => `${num(tx(x))},${num(ty(y))}`).join(' ');
    body.push(el('polyline', { points: path, fill: 'none', stroke: colors[i]!, 'stroke-width': 2, ...dash }));
    for (const [x, y] of pts) body.push(el('circle', { cx: tx(x), cy: ty(y), r: 2.5, fill: colors[i]! }));
  });
  body.push(
    ...legend(
      f,
      chart.series.map((s, i) => ({ label: s.label, color: colors[i]!, dashed: s.dashed === true })),
    ),
  );
  return svgDocument(f, chart, body);
}

function xRange(xs: readonly number[], log: boolean): [number, number] {
  const usable = log ? xs.filter((x) => x > 0) : xs;
  if (usable.length === 0) return log ? [1, 10] : [0, 1];
  const min = Math.min(...usable);
  const max = Math.max(...usable);
  if (log)
    return [10 ** Math.floor(Math.log10(min)), 10 ** Math.ceil(Math.log10(max === min ? max * 10 : max))];
  return max > min ? [Math.min(0, min), max] : [min - 1, max + 1];
}

function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.round(Math.log10(min)); e <= Math.round(Math.log10(max)); e++) ticks.push(10 ** e);
  return ticks;
}
