/** A tiny DOM builder: h('div', { class: 'x', onclick: fn }, child, …), and formatting helpers. */

export type Child = Node | string | number | null | undefined | false | readonly Child[];
export type Attrs = Readonly<
  Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>
>;

function apply(el: Element, attrs: Attrs | null | undefined): void {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
}

function append(el: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.append(child);
    else el.append(String(child));
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** Replaces the children of `el`. */
export function mount(el: Element | null, ...children: Child[]): void {
  if (el === null) return;
  el.replaceChildren();
  append(el, children);
}

const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

export function price(cents: number): string {
  return money.format(cents / 100);
}

export function clock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString('en-GB', { hour12: false });
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
