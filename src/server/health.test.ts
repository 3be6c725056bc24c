import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HealthChecks, PostStartHook, withGracePeriod } from './health.js';

describe('health checks', () => {
  it('trusts an unfinished start-up hook in livez only during the grace period', async () => {
    const hook = new PostStartHook('start-controllers');
    let graceUntil = Date.now() + 60_000;
    const checks = new HealthChecks();
    checks.add(['livez'], withGracePeriod(hook, () => graceUntil));
    checks.add(['readyz'], hook);
    const q = new URLSearchParams('verbose');
    assert.equal((await checks.answer('livez', undefined, q))!.code, 200);
    assert.deepEqual(await checks.answer('readyz', undefined, q), {
      code: 500,
      body: '[-]poststarthook/start-controllers failed: reason withheld\nreadyz check failed\n',
    });
    graceUntil = Date.now() - 1;
    assert.equal((await checks.answer('livez', undefined, q))!.code, 500);
    hook.complete();
    assert.equal((await checks.answer('livez', undefined, q))!.code, 200);
    assert.deepEqual(await checks.answer('readyz', 'poststarthook/start-controllers', new URLSearchParams()), { code: 200, body: 'ok' });
  });

  it('keeps checks marked last at the end and reports a failing single check', async () => {
    const checks = new HealthChecks();
    checks.add(['readyz'], { name: 'shutdown', last: true, check: () => {} });
    checks.add(['readyz'], {
      name: 'storage',
      check: () => {
        throw new Error('closed');
      },
    });
    assert.deepEqual(checks.names('readyz'), ['storage', 'shutdown']);
    assert.deepEqual(await checks.answer('readyz', 'storage', new URLSearchParams()), { code: 500, body: 'internal server error: closed\n' });
    const excluded = await checks.answer('readyz', undefined, new URLSearchParams('exclude=storage'));
    assert.deepEqual(excluded, { code: 200, body: 'ok' });
  });
});
