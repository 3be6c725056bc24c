import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isKnownTimeZone, jobNameFor, mostRecentScheduleTime, parseSchedule } from './schedule.js';

const at = (iso: string): Date => new Date(iso);

test('five fields, descriptors and @every give the next activation strictly after a time', () => {
  assert.equal(parseSchedule('* * * * *').next(at('2024-01-01T00:00:00Z')).toISOString(), '2024-01-01T00:01:00.000Z');
  assert.equal(parseSchedule('*/15 * * * *').next(at('2024-01-01T00:14:59.500Z')).toISOString(), '2024-01-01T00:15:00.000Z');
  assert.equal(parseSchedule('@hourly').next(at('2024-01-01T00:00:00Z')).toISOString(), '2024-01-01T01:00:00.000Z');
  assert.equal(parseSchedule('@daily').next(at('2024-01-01T00:00:00Z')).toISOString(), '2024-01-02T00:00:00.000Z');
  assert.equal(parseSchedule('@weekly').next(at('2024-01-01T00:00:00Z')).toISOString(), '2024-01-07T00:00:00.000Z');
  assert.equal(parseSchedule('@every 90s').next(at('2024-01-01T00:00:00.700Z')).toISOString(), '2024-01-01T00:01:30.000Z');
  assert.equal(parseSchedule('0 0 * * mon').next(at('2024-01-01T00:00:00Z')).toISOString(), '2024-01-08T00:00:00.000Z');
});

test('time zones: the field, a TZ= prefix, daylight saving', () => {
  // 09:00 in New York, before and after the March change (UTC-5, then UTC-4).
  const ny = parseSchedule('0 9 * * *', 'America/New_York');
  assert.equal(ny.next(at('2024-03-09T00:00:00Z')).toISOString(), '2024-03-09T14:00:00.000Z');
  assert.equal(ny.next(at('2024-03-10T00:00:00Z')).toISOString(), '2024-03-10T13:00:00.000Z');
  assert.equal(parseSchedule('CRON_TZ=Asia/Tokyo 0 9 * * *').next(at('2024-01-01T00:00:00Z')).toISOString(), '2024-01-02T00:00:00.000Z');
  assert.throws(() => parseSchedule('TZ=Mars/Olympus 0 9 * * *'), /provided bad location Mars\/Olympus/);
  assert.equal(isKnownTimeZone('Europe/Berlin'), true);
  assert.equal(isKnownTimeZone('Local'), false);
  assert.equal(isKnownTimeZone('Nowhere/City'), false);
});

test('bad schedules throw the parser message', () => {
  assert.throws(() => parseSchedule('* * * *'), /expected exactly 5 fields, found 4: \* \* \* \*/);
  assert.throws(() => parseSchedule('61 * * * *'), /end of range \(61\) above maximum \(59\): 61/);
});

test('most recent activation and the count of missed ones', () => {
  const s = parseSchedule('* * * * *');
  assert.deepEqual(mostRecentScheduleTime(s, at('2024-01-01T00:00:30Z'), at('2024-01-01T00:00:59Z')), { missed: 0 });
  assert.equal(mostRecentScheduleTime(s, at('2024-01-01T00:00:30Z'), at('2024-01-01T00:01:00Z')).time?.toISOString(), '2024-01-01T00:01:00.000Z');
  const r = mostRecentScheduleTime(s, at('2024-01-01T00:00:00Z'), at('2024-01-01T05:00:10Z'));
  assert.equal(r.time?.toISOString(), '2024-01-01T05:00:00.000Z');
  assert.equal(r.missed, 300);
  const few = mostRecentScheduleTime(s, at('2024-01-01T00:00:00Z'), at('2024-01-01T00:10:10Z'));
  assert.deepEqual([few.time?.toISOString(), few.missed], ['2024-01-01T00:10:00.000Z', 10]);
});

test('Job names carry the activation in minutes since the epoch', () => {
  assert.equal(jobNameFor('hello', at('2024-01-01T00:01:00Z')), `hello-${Date.UTC(2024, 0, 1, 0, 1) / 60_000}`);
});
