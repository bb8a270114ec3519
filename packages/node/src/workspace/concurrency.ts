/**
 * Runs `fn` over `items` with at most `limit` calls in flight and returns the results in
 * input order. `limit` must be an integer ≥ 1. Rejects with the first error `fn` throws
 * (callers that want per-item errors catch inside `fn`).
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(limit, items.length); i++) workers.push(worker());
  await Promise.all(workers);
  return results;
}

/** Resolves after the event loop has had a chance to run pending I/O callbacks. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
