/**
 * `run()`, a synchronous throw turned into a rejection: for functions that answer a promise
 * without an async frame. On the request path an async function that returns another promise
 * costs promises and two microtask hops per call; `promised` keeps their contract (a caller only
 * ever sees a rejection) without them.
 */
export function promised<T>(run: () => Promise<T>): Promise<T> {
  try {
    return run();
  } catch (err) {
    return Promise.reject(err);
  }
}
