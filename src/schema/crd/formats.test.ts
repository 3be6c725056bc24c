import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCheck } from './formats.js';

describe('formatCheck', () => {
  const table: [string, string, string][] = [
    // format, a good value, a bad value
    ['date', '2024-02-29', '2023-02-29'],
    ['date-time', '2024-01-02T03:04:05Z', '2024-01-02 03:04:05'],
    ['datetime', '2024-01-02T03:04:05.123+01:00', '2024-01-02T25:04:05Z'],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-12d3-a456'],
    ['uuid4', '123e4567-e89b-42d3-a456-426614174000', '123e4567-e89b-12d3-a456-426614174000'],
    ['byte', 'aGVsbG8=', 'aGVsbG8'],
    ['ipv4', '10.0.0.1', '10.0.0.256'],
    ['ipv6', '::1', '10.0.0.1'],
    ['cidr', '10.0.0.0/8', '10.0.0.0/33'],
    ['mac', '00:1a:2b:3c:4d:5e', '00:1a:2b'],
    ['hostname', 'example.com', '-bad-.com'],
    ['email', 'a@example.com', 'not an email'],
    ['uri', 'https://example.com/x', 'example.com'],
    ['duration', '1h30m', 'soon'],
    ['hexcolor', '#fff', '#ffff'],
    ['isbn10', '0321751043', '0321751044'],
    ['ssn', '123-45-6789', '123-456-789'],
  ];
  for (const [format, good, bad] of table) {
    it(`${format} accepts ${good} and refuses ${bad}`, () => {
      const check = formatCheck(format);
      assert.ok(check);
      assert.equal(check(good), true);
      assert.equal(check(bad), false);
    });
  }

  it('ignores the formats apiextensions strips', () => {
    for (const f of ['int32', 'int64', 'float', 'double', 'unknown', '__proto__']) assert.equal(formatCheck(f), undefined);
  });
});
