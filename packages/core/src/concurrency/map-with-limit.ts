/**
 * `Promise.all(items.map(fn))` with at most `limit` calls in flight; results in input order.
 * The first rejection rejects the whole (as `Promise.all` does) and starts no further call.
 */
export async function mapWithLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  if (!(limit >= 1) || limit >= items.length) return Promise.all(items.map(fn));
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.floor(limit) }, worker));
  return results;
}
