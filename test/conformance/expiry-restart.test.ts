// Compacted list snapshots (410 for Exact and for continue tokens, with the token that
// finishes the list), data surviving a restart on sqlite, and a deleted namespace taking
// its content with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server, eventually, meta, serverUnavailable } from './harness.js';

const skip = serverUnavailable();
// Leases in the first test: a kind nothing in the server creates on its own (the root CA
// publisher puts a config map into every namespace), so its lists hold only what it creates.
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';

const names = (list: Record<string, unknown>) => (list.items as Record<string, unknown>[]).map((i) => meta(i).name);

test('an expired continue token is 410 with a token that finishes the list at the latest revision', { skip }, async () => {
  const server = await Server.start(['--compat', 'kubernetes', '--storage-backend', 'memory', '--watch-history-window', '1s', '--etcd-compaction-interval', '1s']);
  try {
    for (const name of ['a', 'b', 'c']) await server.expect(201, 'POST', LEASES, { body: { metadata: { name } } });
    const first = await server.expect(200, 'GET', `${LEASES}?limit=1`);
    const oldRv = String(meta(first).resourceVersion);
    await server.expect(201, 'POST', LEASES, { body: { metadata: { name: 'd' } } });
    // The server compacts on its own wall clock (a 1 s window, every second): look until the
    // list's revision is gone.
    const exact = await eventually(async () => {
      const r = await server.request('GET', `${LEASES}?resourceVersion=${oldRv}&resourceVersionMatch=Exact`);
      return r.status === 410 ? r.json : undefined;
    }, `revision ${oldRv} to be compacted`);
    assert.equal(exact?.message, 'The resourceVersion for the provided list is too old.');
    await server.expect(201, 'POST', LEASES, { body: { metadata: { name: 'e' } } });
    const expired = await server.expect(410, 'GET', `${LEASES}?limit=1&continue=${String(meta(first).continue)}`);
    assert.equal(expired.reason, 'Expired');
    assert.match(String(expired.message), /^The provided continue parameter is too old to display a consistent list result\./);
    const token = String(meta(expired).continue ?? '');
    assert.notEqual(token, '');
    const rest = await server.expect(200, 'GET', `${LEASES}?continue=${token}`);
    assert.deepEqual(names(rest), ['b', 'c', 'd', 'e']);
  } finally {
    await server.stop();
  }
});

test('sqlite data survives a restart; a deleted namespace goes away with its content', { skip }, async () => {
  let server = await Server.start(['--compat', 'kubernetes']);
  const dataDir = server.dataDir;
  try {
    await server.expect(201, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'keep' } } });
    await server.expect(201, 'POST', '/api/v1/namespaces/keep/configmaps', { body: { metadata: { name: 'kept' }, data: { a: '1' } } });
    await server.expect(201, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'gone' } } });
    await server.expect(201, 'POST', '/api/v1/namespaces/gone/configmaps', { body: { metadata: { name: 'lost' } } });
    await server.expect(200, 'DELETE', '/api/v1/namespaces/gone');
    const deadline = Date.now() + 20_000;
    while ((await server.request('GET', '/api/v1/namespaces/gone')).status !== 404) {
      assert.ok(Date.now() < deadline, 'the namespace was not removed in time');
      await new Promise((r) => setTimeout(r, 100));
    }
    await server.stop(true);
    server = await Server.start(['--compat', 'kubernetes'], dataDir);
    const kept = await server.expect(200, 'GET', '/api/v1/namespaces/keep/configmaps/kept');
    assert.deepEqual(kept.data, { a: '1' });
    const everywhere = await server.expect(200, 'GET', '/api/v1/configmaps');
    assert.equal(names(everywhere).includes('lost'), false);
    await server.expect(404, 'GET', '/api/v1/namespaces/gone');
  } finally {
    await server.stop();
  }
});
