import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../apimachinery/clock.js';
import { ControllerExpectations, EXPECTATIONS_TIMEOUT_MS } from './expectations.js';

test('expectations hold a sync until every awaited create and delete is seen, or they expire', () => {
  const clock = new FakeClock();
  const e = new ControllerExpectations(clock);
  assert.equal(e.satisfied('ns/rs'), true);
  e.expect('ns/rs', 2, 1);
  assert.equal(e.satisfied('ns/rs'), false);
  e.creationObserved('ns/rs');
  e.creationObserved('ns/rs');
  assert.equal(e.satisfied('ns/rs'), false);
  e.deletionObserved('ns/rs');
  assert.equal(e.satisfied('ns/rs'), true);
  e.expect('ns/rs', 1, 0);
  clock.step(EXPECTATIONS_TIMEOUT_MS);
  assert.equal(e.satisfied('ns/rs'), false);
  clock.step(1);
  assert.equal(e.satisfied('ns/rs'), true);
  e.forget('ns/rs');
  assert.equal(e.satisfied('ns/rs'), true);
});
