import { describe, expect, it } from 'vitest';
import { FIG8_QUICK, runFig8 } from '../paper/fig8.js';
import { renderGroupedBars, renderStackedShares } from './bar-chart.js';
import { renderLineChart } from './line-chart.js';
import { fig8Chart } from './paper-charts.js';
import { linearTicks } from './svg.js';

/** Well-formed XML in the small subset the charts use: balanced tags, quoted attributes, escaped text. */
function expectWellFormed(svg: string): void {
  expect(
    svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"'),
  ).toBe(true);
  const body = svg.slice(svg.indexOf('?>') + 2);
  const stack: string[] = [];
  const token = /<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w:-]+="[^"<>]*")*)\s*(\/?)>|([^<]+)/gy;
  let consumed = 0;
  for (let m = token.exec(body); m !== null; m = token.exec(body)) {
    consumed = token.lastIndex;
    const [, closing, name, , selfClosing, content] = m;
    if (content !== undefined) {
      expect(content).not.toMatch(/[<>]|&(?!(amp|lt|gt|quot|apos);)/);
      continue;
    }
    if (closing === '/') expect(stack.pop()).toBe(name);
    else if (selfClosing !== '/') stack.push(name!);
  }
  expect(consumed).toBe(body.length);
  expect(stack).toEqual([]);
  expect(svg).not.toContain('NaN');
}

function texts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
}

describe('SVG charts', () => {
  it('draws a line chart with title, axis labels, legend and log ticks, skipping missing points', () => {
    const svg = renderLineChart({
      title: 'Efficiency <by> metadata & more',
      xLabel: 'bytes',
      yLabel: 'efficiency',
      xScale: 'log',
      yMin: 0,
      yMax: 1,
      series: [
        {
          label: 'strategy 3',
          points: [
            [60, 0.98],
            [1_920, 0.97],
            [3_840, Number.NaN],
          ],
        },
        {
          label: 'strategy 1',
          points: [
            [180, 0.45],
            [46_080, 0.93],
          ],
          dashed: true,
        },
      ],
    });
    expectWellFormed(svg);
    expect(svg).toContain('<title>Efficiency &lt;by&gt; metadata &amp; more</title>');
    const labels = texts(svg);
    expect(labels).toEqual(
      expect.arrayContaining(['Efficiency &lt;by&gt; metadata &amp; more', 'bytes', 'efficiency']),
    );
    expect(labels).toEqual(
      expect.arrayContaining(['strategy 3', 'strategy 1', '10', '100', '1000', '10k', '100k']),
    );
    expect(svg).toContain('stroke-dasharray="6 4"');
  });

  it('draws grouped and stacked bars with their labels', () => {
    const chart = {
      title: 'Table 2',
      xLabel: 'latency',
      yLabel: 'ms',
      series: ['server-driven', 'client-driven'],
      groups: [
        { label: 'read p99.9', values: [68.9, 30.4] },
        { label: 'read mean', values: [3.9, Number.NaN] },
      ],
      valueLabel: (v: number) => v.toFixed(1),
    };
    const grouped = renderGroupedBars(chart);
    expectWellFormed(grouped);
    expect(texts(grouped)).toEqual(
      expect.arrayContaining(['Table 2', 'latency', 'ms', 'read p99.9', '68.9', 'client-driven']),
    );
    // The background, three bars (one value is missing) and two legend boxes.
    expect(grouped.match(/<rect /g)).toHaveLength(1 + 3 + 2);
    const stacked = renderStackedShares({ ...chart, groups: [{ label: '4', values: [90, 8, 2, 0] }] });
    expectWellFormed(stacked);
    expect(texts(stacked)).toEqual(expect.arrayContaining(['0%', '100%', '4']));
  });

  it('draws Figure 8 from a simulation, and picks round ticks', () => {
    const result = runFig8({
      ...FIG8_QUICK,
      nodes: 6,
      keys: 1_000,
      requests: 5_000,
      tokensPerNode: [1, 8],
      partitionsPerNode: [1, 4],
    });
    const svg = fig8Chart(result);
    expectWellFormed(svg);
    expect(texts(svg)).toEqual(
      expect.arrayContaining(['strategy 3, zipfian θ=0.5', 'strategy 1, zipfian θ=0.8']),
    );
    expect(linearTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(linearTicks(0, 950, 5)).toEqual([0, 200, 400, 600, 800]);
  });
});
