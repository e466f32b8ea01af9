/**
 * Whether `promise` settled (fulfilled or rejected) within `ms`: for a bounded wait on work that
 * is then left behind (a shutdown that goes on without a stuck run, a close past its timeout).
 * Never rejects; the timer is cleared either way.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
