/**
 * `make(key)`, made once per key and kept: for a small, bounded set of keys looked up on a hot
 * path (a metric's label children: a label lookup hashes its label object on every call).
 */
export function memoized<K, V>(make: (key: K) => V): (key: K) => V {
  const made = new Map<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}
