// Polling for tests that wait on something another task does (a watch delivering, a
// controller acting): the one helper every folder's tests share.

/** What a probe answers while the awaited state has not come yet. */
type NotYet = undefined | null | false;

/**
 * Calls `probe` until it answers something other than undefined, null or false, and returns
 * that answer; fails naming `what` once `timeoutMs` has passed. A probe that throws fails at once.
 */
export async function eventually<T>(
  probe: () => T | NotYet | Promise<T | NotYet>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
