/**
 * What belongs to this browser tab: the cart it shows (from the address, which is also the share
 * link), the node it talks to (sessionStorage, so every tab can talk to a different node; a
 * `?node=` in the address sets it).
 */

const NODE_KEY = 'tessera.node';

export function cartIdFromPath(): string {
  const match = /^\/c\/([A-Za-z0-9_-]{6,40})/.exec(location.pathname);
  return match?.[1] ?? '';
}

export function shareUrl(cartId: string, node?: string): string {
  const url = new URL(`/c/${cartId}`, location.origin);
  if (node !== undefined) url.searchParams.set('node', node);
  return url.toString();
}

/** The node from `?node=` (then dropped from the address), else this tab's choice, else auto. */
export function initialNode(): string {
  const params = new URLSearchParams(location.search);
  const fromUrl = params.get('node');
  if (fromUrl !== null && /^[A-Za-z0-9_.-]{1,64}$/.test(fromUrl)) {
    saveNode(fromUrl);
    params.delete('node');
    const query = params.toString();
    history.replaceState(null, '', `${location.pathname}${query === '' ? '' : `?${query}`}`);
  }
  return sessionStorage.getItem(NODE_KEY) ?? 'auto';
}

export function saveNode(node: string): void {
  sessionStorage.setItem(NODE_KEY, node);
}
