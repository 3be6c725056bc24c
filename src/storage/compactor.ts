// Compacts the store on a schedule so that it keeps about `windowMs` of history: each tick
// notes the store's revision, and compacts up to the newest revision noted at least one
// window ago.

import type { Storage } from './interface.js';

export interface CompactorOptions {
  intervalMs: number;
  windowMs: number;
  /** Called when a tick fails; the compactor keeps going. */
  onError?: (err: unknown) => void;
  now?: () => number;
}

export function startCompactor(storage: Storage, opts: CompactorOptions): { stop(): void } {
  const now = opts.now ?? Date.now;
  const samples: { at: number; revision: number }[] = [];
  let compacted = 0;
  let busy = false;

  const tick = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      const at = now();
      samples.push({ at, revision: await storage.revision() });
      let target: number | undefined;
      while (samples.length > 0 && (samples[0] as { at: number }).at <= at - opts.windowMs) {
        target = (samples.shift() as { revision: number }).revision;
      }
      if (target !== undefined && target > compacted) {
        await storage.compact(target);
        compacted = target;
      }
    } catch (err) {
      opts.onError?.(err);
    } finally {
      busy = false;
    }
  };

  const timer = setInterval(() => void tick(), opts.intervalMs);
  timer.unref();
  return {
    stop(): void {
      clearInterval(timer);
    },
  };
}
