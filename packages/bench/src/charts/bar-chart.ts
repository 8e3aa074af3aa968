/** Bar charts: grouped bars (Table 2) and 100% stacked bars (section 6.3), with a legend. */
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

export interface BarGroup {
  readonly label: string;
  /** One value per series, in the order of `series`. */
  readonly values: readonly number[];
}

export interface BarChart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly string[];
  readonly groups: readonly BarGroup[];
  /** Values above the bars, formatted by this; none when absent. */
  readonly valueLabel?: (value: number) => string;
}

/** Bars side by side within each group. */
export function renderGroupedBars(chart: BarChart): string {
  const f = frame();
  const yMax = niceMax(Math.max(0, ...chart.groups.flatMap((g) => g.values.filter(Number.isFinite))));
  const ty = (y: number): number => f.bottom - (y / yMax) * (f.bottom - f.top);
  const body = yGrid(f, yMax, ty);
  const slot = (f.right - f.left) / Math.max(1, chart.groups.length);
  const barWidth = (slot * 0.7) / Math.max(1, chart.series.length);
  chart.groups.forEach((g, gi) => {
    const x0 = f.left + gi * slot + slot * 0.15;
    g.values.forEach((v, si) => {
      if (!Number.isFinite(v)) return;
      const x = x0 + si * barWidth;
      body.push(
        el('rect', {
          x,
          y: ty(v),
          width: barWidth - 2,
          height: f.bottom - ty(v),
          fill: PALETTE[si % PALETTE.length]!,
        }),
      );
      if (chart.valueLabel !== undefined) {
        body.push(
          text(x + barWidth / 2, ty(v) - 4, chart.valueLabel(v), {
            'text-anchor': 'middle',
            'font-size': 10,
          }),
        );
      }
    });
    body.push(
      text(f.left + gi * slot + slot / 2, f.bottom + 18, g.label, {
        'text-anchor': 'middle',
        class: 'x-tick',
      }),
    );
  });
  body.push(
    ...legend(
      f,
      chart.series.map((label, i) => ({ label, color: PALETTE[i % PALETTE.length]! })),
      'box',
    ),
  );
  return svgDocument(f, chart, body);
}

/** One bar per group, its values stacked as shares of the group's total (0-100%). */
export function renderStackedShares(chart: BarChart): string {
  const f = frame();
  const ty = (share: number): number => f.bottom - share * (f.bottom - f.top);
  const body = yGrid(f, 1, ty, (v) => `${num(v * 100)}%`);
  const slot = (f.right - f.left) / Math.max(1, chart.groups.length);
  chart.groups.forEach((g, gi) => {
    const total = g.values.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
    const x = f.left + gi * slot + slot * 0.2;
    let base = 0;
    g.values.forEach((v, si) => {
      if (!(total > 0) || !Number.isFinite(v) || v <= 0) return;
      const share = v / total;
      body.push(
        el('rect', {
          x,
          y: ty(base + share),
          width: slot * 0.6,
          height: ty(base) - ty(base + share),
          fill: PALETTE[si % PALETTE.length]!,
        }),
      );
      base += share;
    });
    body.push(
      text(f.left + gi * slot + slot / 2, f.bottom + 18, g.label, {
        'text-anchor': 'middle',
        class: 'x-tick',
      }),
    );
  });
  body.push(
    ...legend(
      f,
      chart.series.map((label, i) => ({ label, color: PALETTE[i % PALETTE.length]! })),
      'box',
    ),
  );
  return svgDocument(f, chart, body);
}

function yGrid(
  f: ReturnType<typeof frame>,
  yMax: number,
  ty: (y: number) => number,
  label: (v: number) => string = formatTick,
): string[] {
  return linearTicks(0, yMax, 5).flatMap((y) => [
    line(f.left, ty(y), f.right, ty(y), { stroke: '#e5e5e5' }),
    text(f.left - 8, ty(y) + 4, label(y), { 'text-anchor': 'end', class: 'y-tick' }),
  ]);
}
