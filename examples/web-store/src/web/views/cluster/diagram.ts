/**
 * The cluster drawn: a disc per node and a line per pair, from the picture's links: grey when both
 * are in touch, red and dashed when one blocks the other (a split), dotted grey when an end is
 * down, dotted amber while a failure detector still doubts the other end.
 */
import type { ClusterView } from '../../../shared/api.js';
import { s } from '../../dom.js';

const W = 300;
const H = 214;

function positions(ids: readonly string[]): Map<string, { x: number; y: number }> {
  const radius = ids.length <= 1 ? 0 : 68;
  return new Map(
    ids.map((id, i) => {
      const angle = -Math.PI / 2 + (2 * Math.PI * i) / ids.length;
      return [id, { x: W / 2 + radius * Math.cos(angle) * 1.35, y: H / 2 + 14 + radius * Math.sin(angle) }];
    }),
  );
}

export function diagram(view: ClusterView, here: string | undefined): SVGSVGElement {
  const at = positions(view.nodes.map((n) => n.id));
  const sideOf = new Map<string, number>();
  view.split?.forEach((side, i) => {
    for (const id of side) sideOf.set(id, i);
  });
  const links = view.links.map((l) => {
    const a = at.get(l.a)!;
    const b = at.get(l.b)!;
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    return s(
      'g',
      { class: `link link-${l.state}`, 'data-a': l.a, 'data-b': l.b, 'data-state': l.state },
      s('title', null, `${l.a}–${l.b}: ${l.state}`),
      s('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y }),
      l.state === 'blocked'
        ? s(
            'g',
            { class: 'cut', transform: `translate(${mid.x} ${mid.y})` },
            s('circle', { r: 10 }),
            s('path', { d: 'M-4 -4L4 4M4 -4L-4 4' }),
          )
        : null,
    );
  });
  const nodes = view.nodes.map((n) => {
    const p = at.get(n.id)!;
    const side = sideOf.get(n.id);
    return s(
      'g',
      {
        class: `dnode dnode-${n.state}${side === undefined ? '' : ` side-${side}`}`,
        transform: `translate(${p.x} ${p.y})`,
        'data-node': n.id,
        'data-state': n.state,
      },
      side === undefined ? null : s('circle', { class: 'halo', r: 34 }),
      s('circle', { class: 'disc', r: 25 }),
      s('text', { class: 'dlabel', 'text-anchor': 'middle', dy: 5 }, n.id),
      here === n.id
        ? s(
            'g',
            { class: 'you', transform: 'translate(0 -38)' },
            s('rect', { x: -30, y: -10, width: 60, height: 18, rx: 9 }),
            s('text', { 'text-anchor': 'middle', dy: 3 }, 'this tab'),
          )
        : null,
    );
  });
  return s(
    'svg',
    { class: 'diagram', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'cluster diagram' },
    links,
    nodes,
  );
}
