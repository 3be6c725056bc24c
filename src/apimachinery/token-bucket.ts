// client-go's token bucket rate limiter on a Clock: `qps` tokens a second, at most `burst`
// saved, full at the start.
import type { Clock } from './clock.js';

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.last = clock.now().getTime();
  }

  private refill(): void {
    const now = this.clock.now().getTime();
    // A clock set back refills nothing.
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
      this.last = now;
    }
  }

  /** Takes a token when one is there (TryAccept). */
  tryAccept(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Takes a token, going into debt if none is there; the milliseconds to wait before using it (Reserve). */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }
}
