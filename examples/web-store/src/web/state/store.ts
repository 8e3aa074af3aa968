/**
 * The page's one state store: every view renders from its state, every action and poll changes it
 * through `update`. Listeners run once per batch of updates (a microtask later).
 */
export class Store<S> {
  private readonly listeners = new Set<(state: S) => void>();
  private scheduled = false;

  constructor(private state: S) {}

  get(): S {
    return this.state;
  }

  update(change: (state: S) => S): void {
    this.state = change(this.state);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      for (const listener of this.listeners) listener(this.state);
    });
  }

  subscribe(listener: (state: S) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
