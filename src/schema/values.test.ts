import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalQuantity, nanoValue, parseQuantity, quantityNanos, QUANTITY_FORMAT_ERROR } from './quantity.js';
import { checkBase64, normalizeDuration, normalizeMicroTime, normalizeTime } from './go-values.js';

test('quantities serialize in canonical form', () => {
  const cases: [string, string][] = [
    ['1000m', '1'],
    ['0.5', '500m'],
    ['1.5', '1500m'],
    ['1500', '1500'],
    ['1000', '1k'],
    ['1k', '1k'],
    ['2000k', '2M'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['512', '512'],
    ['0.5Ki', '512'],
    ['0.1Ki', '102400m'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['100m', '100m'],
    ['0', '0'],
    ['-1.5', '-1500m'],
    ['+2', '2'],
    ['1n', '1n'],
    ['0.0000000001', '1n'],
    ['12Mi', '12Mi'],
    ['129e6', '129e6'],
  ];
  for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, input);
});

test('malformed quantities fail with the Kubernetes message', () => {
  for (const bad of ['', 'abc', '1.2.3', '1Zi', '--1']) {
    assert.throws(() => canonicalQuantity(bad), (e: Error) => /quantities must match|unable to parse/.test(e.message), bad);
  }
  assert.throws(() => canonicalQuantity('x'), { message: QUANTITY_FORMAT_ERROR });
});

test('quantities compare by their exact value in nano units', () => {
  assert.equal(nanoValue(parseQuantity('1500m')), nanoValue(parseQuantity('1.5')));
  assert.equal(nanoValue(parseQuantity('1Gi')), 1024n ** 3n * 10n ** 9n);
  assert.equal(nanoValue(parseQuantity('-2k')), -2000n * 10n ** 9n);
  // Anything finer than a nano rounds up, as Kubernetes keeps it.
  assert.equal(nanoValue(parseQuantity('0.0000000001')), 1n);
  // A member may hold a string or a JSON number; anything else is not a quantity.
  assert.equal(quantityNanos('250m'), 250_000_000n);
  assert.equal(quantityNanos(2), 2_000_000_000n);
  assert.equal(quantityNanos(0.5), 500_000_000n);
  assert.equal(quantityNanos('1K'), undefined);
  assert.equal(quantityNanos(''), undefined);
  assert.equal(quantityNanos(true), undefined);
  assert.equal(quantityNanos(Number.POSITIVE_INFINITY), undefined);
});

test('times normalize to UTC and reject malformed values with Go messages', () => {
  assert.equal(normalizeTime('2024-03-01T10:00:00+02:00'), '2024-03-01T08:00:00Z');
  assert.equal(normalizeTime('2024-03-01T10:00:00.75Z'), '2024-03-01T10:00:00Z');
  assert.equal(normalizeMicroTime('2024-03-01T10:00:00.5Z'), '2024-03-01T10:00:00.500000Z');
  assert.throws(() => normalizeTime('yesterday'), {
    message: 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
  });
  assert.throws(() => normalizeTime('2024-13-01T00:00:00Z'), { message: 'parsing time "2024-13-01T00:00:00Z": month out of range' });
  assert.throws(() => normalizeTime('2024-01-01'), {
    message: 'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"',
  });
});

test('durations normalize as Go prints them', () => {
  assert.equal(normalizeDuration('90m'), '1h30m0s');
  assert.equal(normalizeDuration('1.5s'), '1.5s');
  assert.equal(normalizeDuration('500ms'), '500ms');
  assert.equal(normalizeDuration('0'), '0s');
  assert.equal(normalizeDuration('2h45m30.5s'), '2h45m30.5s');
  assert.throws(() => normalizeDuration('ten'), { message: 'time: invalid duration "ten"' });
  assert.throws(() => normalizeDuration('10'), { message: 'time: missing unit in duration "10"' });
});

test('base64 follows the standard padded alphabet', () => {
  for (const ok of ['', 'YQ==', 'YWI=', 'YWJj', 'YWJj\nZGVm']) assert.doesNotThrow(() => checkBase64(ok), ok);
  assert.throws(() => checkBase64('YW*j'), { message: 'illegal base64 data at input byte 2' });
  assert.throws(() => checkBase64('YWJjZ'), { message: 'illegal base64 data at input byte 4' });
  assert.throws(() => checkBase64('YQ==YQ=='), { message: 'illegal base64 data at input byte 4' });
});
