// Constant-time comparison of secrets of any length: both sides are hashed first so that
// neither the content nor the length leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';

export function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function secretEquals(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
