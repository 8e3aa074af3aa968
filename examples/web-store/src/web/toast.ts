/** Short messages in the corner: errors stay 6 s, information 3 s. */
import { h } from './dom.js';

export function toast(message: string, kind: 'error' | 'info' = 'error'): void {
  const box = document.getElementById('toasts');
  const el = h('div', { class: `toast ${kind}`, role: 'status' }, message);
  box?.append(el);
  setTimeout(() => el.remove(), kind === 'error' ? 6_000 : 3_000);
}
