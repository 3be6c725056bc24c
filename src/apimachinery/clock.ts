// Time for everything that acts on a schedule (controllers' resyncs, CronJob schedules, TTLs,
// certificate cleanup). Code takes a Clock instead of calling Date and setTimeout, so that
// tests and library users can drive time by hand.

export interface Clock {
  now(): Date;
  /** Calls `fn` once `ms` of this clock's time have passed; returns a function that cancels it. */
  schedule(ms: number, fn: () => void): () => void;
}

/** The wall clock and Node's timers (unref'd: a pending schedule never keeps a process alive). */
export const realClock: Clock = {
  now: () => new Date(),
  schedule(ms, fn) {
    const timer = setTimeout(fn, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
    timer.unref();
    return () => clearTimeout(timer);
  },
};

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

/** A clock that moves only when told to; `step` runs every schedule that falls due, in time order. */
export class FakeClock implements Clock {
  private current: number;
  private pending: Pending[] = [];
  private seq = 0;

  constructor(start: Date | number = Date.UTC(2024, 0, 1)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  schedule(ms: number, fn: () => void): () => void {
    const entry: Pending = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.pending.push(entry);
    return () => {
      this.pending = this.pending.filter((p) => p !== entry);
    };
  }

  /** Moves time forward by `ms`, running what falls due on the way (each at its own time). */
  step(ms: number): void {
    this.setTime(this.current + ms);
  }

  /** Moves time to `t` (never backwards), running what falls due on the way. */
  setTime(t: Date | number): void {
    const target = typeof t === 'number' ? t : t.getTime();
    for (;;) {
      const due = this.pending.filter((p) => p.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.pending = this.pending.filter((p) => p !== due);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = Math.max(this.current, target);
  }

  /** How many schedules wait (tests assert that a controller arranged its next wake-up). */
  waiting(): number {
    return this.pending.length;
  }
}
