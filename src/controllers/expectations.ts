// Expectations: what a controller has asked for and not yet seen in its informer (creates and
// deletes per owner key), so that a second sync before the informer catches up never
// creates or deletes twice for one gap. An expectation older than five minutes counts as
// satisfied, as kube-controller-manager's do, so a lost event cannot stall an owner forever.
import type { Clock } from '../apimachinery/clock.js';

/** kube's ExpectationsTimeout. */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

interface Pending {
  add: number;
  del: number;
  /** Clock time the expectation was set (ms). */
  at: number;
}

export class ControllerExpectations {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly clock: Clock) {}

  /** Nothing is awaited for `key` (or what was awaited has expired): the owner may be synced. */
  satisfied(key: string): boolean {
    const p = this.pending.get(key);
    if (!p) return true;
    if ((p.add <= 0 && p.del <= 0) || this.clock.now().getTime() - p.at > EXPECTATIONS_TIMEOUT_MS) return true;
    return false;
  }

  /** Replaces what is awaited for `key`: `add` creates and `del` deletes about to be sent. */
  expect(key: string, add: number, del: number): void {
    this.pending.set(key, { add, del, at: this.clock.now().getTime() });
  }

  /** An awaited create was seen in the informer, or will never come (the create failed). */
  creationObserved(key: string): void {
    const p = this.pending.get(key);
    if (p) p.add--;
  }

  /** An awaited delete was seen, or will never come. */
  deletionObserved(key: string): void {
    const p = this.pending.get(key);
    if (p) p.del--;
  }

  /** The owner is gone. */
  forget(key: string): void {
    this.pending.delete(key);
  }
}
