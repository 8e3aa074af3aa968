/**
 * Small hand-written SVG: escaping, a few elements, and the frame every chart shares (title,
 * axis labels, plot area). No dependencies; the output is plain, deterministic XML.
 */
export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'] as const;

export interface Frame {
  readonly width: number;
  readonly height: number;
  /** The plot area inside the margins. */
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

export function frame(width = 760, height = 420): Frame {
  return { width, height, left: 72, top: 48, right: width - 210, bottom: height - 56 };
}

export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** A number for an attribute: two decimals at most, no exponent. */
export function num(value: number): string {
  return String(Math.round(value * 100) / 100);
}

type Attrs = Readonly<Record<string, string | number>>;

function attrs(a: Attrs): string {
  return Object.entries(a)
    .map(([k, v]) => ` ${k}="${typeof v === 'number' ? num(v) : escapeXml(v)}"`)
    .join('');
}

export function el(name: string, a: Attrs, children?: string): string {
  return children === undefined ? `<${name}${attrs(a)}/>` : `<${name}${attrs(a)}>${children}</${name}>`;
}

export function text(x: number, y: number, content: string, a: Attrs = {}): string {
  return el('text', { x, y, ...a }, escapeXml(content));
}

export function line(x1: number, y1: number, x2: number, y2: number, a: Attrs = {}): string {
  return el('line', { x1, y1, x2, y2, stroke: '#333', ...a });
}

/** The whole document: white background, title, axis labels around the plot area, then `body`. */
export function svgDocument(
  f: Frame,
  labels: { readonly title: string; readonly xLabel: string; readonly yLabel: string },
  body: readonly string[],
): string {
  const midX = (f.left + f.right) / 2;
  const midY = (f.top + f.bottom) / 2;
  const parts = [
    // The accessible name of the image (and what a linter asks of every SVG).
    el('title', {}, escapeXml(labels.title)),
    el('rect', { x: 0, y: 0, width: f.width, height: f.height, fill: '#fff' }),
    text(f.width / 2, 24, labels.title, { 'text-anchor': 'middle', 'font-size': 15, 'font-weight': 'bold' }),
    text(midX, f.height - 14, labels.xLabel, { 'text-anchor': 'middle', class: 'x-label' }),
    text(18, midY, labels.yLabel, {
      'text-anchor': 'middle',
      transform: `rotate(-90 18 ${num(midY)})`,
      class: 'y-label',
    }),
    line(f.left, f.bottom, f.right, f.bottom),
    line(f.left, f.top, f.left, f.bottom),
    ...body,
  ];
  const root = {
    xmlns: 'http://www.w3.org/2000/svg',
    width: f.width,
    height: f.height,
    viewBox: `0 0 ${f.width} ${f.height}`,
    'font-family': 'Helvetica, Arial, sans-serif',
    'font-size': 12,
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${el('svg', root, `\n${parts.join('\n')}\n`)}\n`;
}

/** A legend at the right of the plot area: a swatch and a label per entry. */
export function legend(
  f: Frame,
  entries: readonly { readonly label: string; readonly color: string; readonly dashed?: boolean }[],
  swatch: 'line' | 'box' = 'line',
): string[] {
  return entries.flatMap((e, i) => {
    const y = f.top + 8 + i * 20;
    const x = f.right + 16;
    const dash: Record<string, string> = e.dashed === true ? { 'stroke-dasharray': '6 4' } : {};
    const mark =
      swatch === 'box'
        ? el('rect', { x: x + 4, y: y - 7, width: 16, height: 14, fill: e.color })
        : line(x, y, x + 24, y, { stroke: e.color, 'stroke-width': 2.5, ...dash });
    return [mark, text(x + 30, y + 4, e.label, { class: 'legend' })];
  });
}

/** About `count` round tick values covering [min, max]. */
export function linearTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let k = Math.ceil(min / step); k * step <= max + step * 1e-9; k++) {
    ticks.push(Number((k * step).toPrecision(12)));
  }
  return ticks;
}

/** A round upper bound for an axis that starts at zero. */
export function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const ticks = linearTicks(0, value, 5);
  const last = ticks[ticks.length - 1]!;
  return last >= value ? last : last + (ticks[1]! - ticks[0]!);
}

export function formatTick(value: number): string {
  if (value === 0) return '0';
  if (Math.abs(value) >= 10_000) return `${num(value / 1000)}k`;
  return num(value);
}
