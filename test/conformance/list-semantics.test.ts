// The resourceVersion / resourceVersionMatch table of list, paging with continue tokens and
// remainingItemCount, and selector errors, checked over HTTPS as a client sees them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Server, meta, serverUnavailable } from './harness.js';

const skip = serverUnavailable();
// Leases: a kind nothing in the server creates on its own (the root CA publisher puts a
// config map into every namespace), so the lists below hold only what the tests create.
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';

describe('list semantics', { skip }, () => {
  let server: Server;
  let rv = '';
  let oldRv = '';

  before(async () => {
    server = await Server.start(['--compat', 'kubernetes', '--storage-backend', 'memory']);
    oldRv = String(meta(await server.expect(200, 'GET', LEASES)).resourceVersion);
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      await server.expect(201, 'POST', LEASES, { body: { metadata: { name, labels: { tier: name < 'c' ? 'front' : 'back' } } } });
    }
    rv = String(meta(await server.expect(200, 'GET', LEASES)).resourceVersion);
  });

  after(async () => {
    await server?.stop();
  });

  const names = (list: Record<string, unknown>) => (list.items as Record<string, unknown>[]).map((i) => meta(i).name);

  test('no limit: unset, 0 and a non-zero version all answer the whole list', async () => {
    for (const q of ['', '?resourceVersion=0', `?resourceVersion=${rv}`, `?resourceVersion=${oldRv}`]) {
      const list = await server.expect(200, 'GET', `${LEASES}${q}`);
      assert.deepEqual(names(list), ['a', 'b', 'c', 'd', 'e'], q);
      assert.equal(meta(list).continue, undefined);
    }
  });

  test('limit with resourceVersion=0 is answered whole from the cache, without a continue token', async () => {
    const list = await server.expect(200, 'GET', `${LEASES}?limit=2&resourceVersion=0`);
    assert.deepEqual(names(list), ['a', 'b', 'c', 'd', 'e']);
    assert.equal(meta(list).continue, undefined);
    assert.equal(meta(list).remainingItemCount, undefined);
  });

  test('limit with a non-zero version is an exact read at that version', async () => {
    const list = await server.expect(200, 'GET', `${LEASES}?limit=2&resourceVersion=${oldRv}`);
    assert.equal(meta(list).resourceVersion, oldRv);
    assert.deepEqual(names(list), []);
  });

  test('paging: same snapshot on every page, remainingItemCount, empty continue at the end', async () => {
    const first = await server.expect(200, 'GET', `${LEASES}?limit=2`);
    assert.deepEqual(names(first), ['a', 'b']);
    assert.equal(meta(first).remainingItemCount, 3);
    // A change after the snapshot is not shown on later pages.
    await server.expect(201, 'POST', LEASES, { body: { metadata: { name: 'bb' } } });
    const second = await server.expect(200, 'GET', `${LEASES}?limit=2&continue=${String(meta(first).continue)}`);
    assert.deepEqual(names(second), ['c', 'd']);
    assert.equal(meta(second).resourceVersion, meta(first).resourceVersion);
    const third = await server.expect(200, 'GET', `${LEASES}?limit=2&continue=${String(meta(second).continue)}&resourceVersion=0`);
    assert.deepEqual(names(third), ['e']);
    assert.equal(meta(third).continue, undefined);
    assert.equal(meta(third).remainingItemCount, undefined);
    await server.expect(200, 'DELETE', `${LEASES}/bb`);
  });

  test('a selector leaves remainingItemCount out', async () => {
    const list = await server.expect(200, 'GET', `${LEASES}?limit=1&labelSelector=tier%3Dback`);
    assert.deepEqual(names(list), ['c']);
    assert.notEqual(meta(list).continue, undefined);
    assert.equal(meta(list).remainingItemCount, undefined);
  });

  test('continue with a non-zero resourceVersion is 400', async () => {
    const first = await server.expect(200, 'GET', `${LEASES}?limit=2`);
    const body = await server.expect(400, 'GET', `${LEASES}?limit=2&continue=${String(meta(first).continue)}&resourceVersion=${rv}`);
    assert.equal(body.message, 'specifying resource version is not allowed when using continue');
  });

  // The specification's error table makes these 400 (Kubernetes answers 422 Invalid with the same text).
  test('invalid resourceVersionMatch combinations are 400 with the ListOptions message', async () => {
    const cases: [string, string][] = [
      ['?resourceVersionMatch=Exact', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['?resourceVersionMatch=NotOlderThan', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['?resourceVersionMatch=Exact&resourceVersion=0', 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    ];
    for (const [q, detail] of cases) {
      const body = await server.expect(400, 'GET', `${LEASES}${q}`);
      assert.equal(body.message, `ListOptions.meta.k8s.io "" is invalid: ${detail}`, q);
      assert.equal(body.reason, 'BadRequest');
    }
  });

  test('Exact and NotOlderThan with a valid version', async () => {
    const exact = await server.expect(200, 'GET', `${LEASES}?resourceVersionMatch=Exact&resourceVersion=${oldRv}`);
    assert.equal(meta(exact).resourceVersion, oldRv);
    const notOlder = await server.expect(200, 'GET', `${LEASES}?resourceVersionMatch=NotOlderThan&resourceVersion=${oldRv}`);
    assert.ok(Number(meta(notOlder).resourceVersion) >= Number(rv));
  });

  test('a version from the future is 504 with Retry-After and the too-large cause', async () => {
    const reply = await server.request('GET', `${LEASES}?resourceVersion=99999999&resourceVersionMatch=NotOlderThan`);
    assert.equal(reply.status, 504);
    assert.equal(reply.headers['retry-after'], '1');
    assert.match(String(reply.json?.message), /^Timeout: Too large resource version: 99999999, current: \d+$/);
    assert.deepEqual((reply.json?.details as Record<string, unknown>).causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
  });

  test('malformed continue tokens are 400 without runtime text', async () => {
    const body = await server.expect(400, 'GET', `${LEASES}?limit=1&continue=garbage`);
    assert.equal(body.message, "invalid continue token: continue key is not valid: invalid character '\\u0081' looking for beginning of value");
  });

  test('selectors: grammar errors and unknown fields are 400', async () => {
    const bad = await server.expect(400, 'GET', `${LEASES}?labelSelector=${encodeURIComponent('a in (b')}`);
    assert.equal(bad.message, "unable to parse requirement: found '', expected: ',' or ')'");
    const unknown = await server.expect(400, 'GET', `${LEASES}?fieldSelector=${encodeURIComponent('spec.x=1')}`);
    assert.equal(unknown.message, '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
    const byName = await server.expect(200, 'GET', `${LEASES}?fieldSelector=${encodeURIComponent('metadata.name!=a')}&labelSelector=${encodeURIComponent('tier in (front)')}`);
    assert.deepEqual(names(byName), ['b']);
  });
});
