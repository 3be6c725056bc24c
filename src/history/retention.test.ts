import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatRetention, parseRetention, revisionsToDrop } from './retention.js';

it('parses a duration, a count, both, and 0', () => {
  assert.deepEqual(parseRetention('24h'), { maxAgeMs: 86_400_000 });
  assert.deepEqual(parseRetention('100'), { maxCount: 100 });
  assert.deepEqual(parseRetention('24h,100'), { maxAgeMs: 86_400_000, maxCount: 100 });
  assert.deepEqual(parseRetention('100,1h30m'), { maxAgeMs: 5_400_000, maxCount: 100 });
  assert.deepEqual(parseRetention('7d'), { maxAgeMs: 7 * 86_400_000 });
  assert.deepEqual(parseRetention('1h,50'), { maxAgeMs: 3_600_000, maxCount: 50 });
  assert.equal(parseRetention('0'), undefined);
  assert.equal(formatRetention(parseRetention('1h,50')), '3600000ms,50');
});

it('refuses what is not a retention, saying why', () => {
  for (const bad of ['', ' ', '-1', '1x', 'h', '24h,24h', '1,2', '1h,2,3', '0h', '0,1h', '9999999', '400d', '__proto__', '1e3', '1h,', ',5', '24 h']) {
    assert.throws(() => parseRetention(bad), Error, bad);
  }
  assert.throws(() => parseRetention('24h,24h'), /duration is given twice/);
});

it('drops revisions past either limit but keeps the newest', () => {
  const now = 10_000;
  // Count: keep the last 2.
  assert.equal(revisionsToDrop([1, 2, 3, 4], { maxCount: 2 }, now), 2);
  // Age: older than 5 s at 10 s.
  assert.equal(revisionsToDrop([1000, 4000, 6000, 9000], { maxAgeMs: 5000 }, now), 2);
  // Either limit: the stricter wins.
  assert.equal(revisionsToDrop([1000, 6000, 7000, 9000], { maxAgeMs: 5000, maxCount: 2 }, now), 2);
  assert.equal(revisionsToDrop([1000, 2000, 7000, 9000], { maxAgeMs: 5000, maxCount: 3 }, now), 2);
  // The newest stays however old.
  assert.equal(revisionsToDrop([1, 2, 3], { maxAgeMs: 5 }, now), 2);
  assert.equal(revisionsToDrop([1], { maxAgeMs: 5, maxCount: 1 }, now), 0);
  assert.equal(revisionsToDrop([], { maxCount: 1 }, now), 0);
});
