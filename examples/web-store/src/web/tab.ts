/**
 * What belongs to this browser tab: the cart it shows (from the address, which is also the share
 * link), the node it talks to (sessionStorage, so every tab can talk to a different node; a
 * `?node=` in the address sets it), and its id, which tells the store's story of a cart one tab
 * from another.
 */

const NODE_KEY = 'tessera.node';
const TAB_KEY = 'tessera.tab';

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

/**
 * This tab's id, kept across reloads (sessionStorage). A tab opened from a link with `?node=` gets
 * a new one even if the browser copied the opener's sessionStorage: it is a second tab. Call it
 * before `initialNode`, which drops `?node=` from the address.
 */
export function tabId(): string {
  const kept = sessionStorage.getItem(TAB_KEY);
  const openedForNode = new URLSearchParams(location.search).has('node');
  if (kept !== null && !openedForNode && /^[A-Za-z0-9_-]{6,40}$/.test(kept)) return kept;
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  const id = `t${[...bytes].map((b) => b.toString(36).padStart(2, '0')).join('')}`;
  sessionStorage.setItem(TAB_KEY, id);
  return id;
}

/** A new cart id, as the store makes them (12 characters of base64url). */
export function newCartId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_');
}

/** `?view=split`: the split-screen page. */
export function initialMode(): 'shop' | 'split' {
  return new URLSearchParams(location.search).get('view') === 'split' ? 'split' : 'shop';
}

/** `?play=1`: play the story once the page has loaded (dropped from the address, so a reload does not). */
export function takePlay(): boolean {
  const params = new URLSearchParams(location.search);
  if (params.get('play') !== '1') return false;
  params.delete('play');
  history.replaceState(null, '', `${location.pathname}?${params.toString()}`);
  return true;
}

/** Switches the address between the shop and split-screen, without reloading. */
export function saveMode(mode: 'shop' | 'split'): void {
  const params = new URLSearchParams(location.search);
  if (mode === 'split') params.set('view', 'split');
  else params.delete('view');
  const query = params.toString();
  history.replaceState(null, '', `${location.pathname}${query === '' ? '' : `?${query}`}`);
}
