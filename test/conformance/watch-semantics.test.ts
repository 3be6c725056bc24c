// The watch table (unset / 0 / non-zero resourceVersion), selector transitions, resume,
// bookmarks before the timeout, and 410 once a version left the history window.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Server, eventually, meta, serverUnavailable, watchEvents } from './harness.js';

const skip = serverUnavailable();
// Leases: a kind nothing in the server creates on its own (the root CA publisher puts a
// config map into every namespace), so the lists below hold only what the tests create.
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const MERGE = 'application/merge-patch+json';

function summary(text: string): string[] {
  return watchEvents(text).map((e) => `${e.type} ${String(meta(e.object).name ?? meta(e.object).resourceVersion)}`);
}

describe('watch semantics', { skip }, () => {
  let server: Server;
  let rv = '';

  before(async () => {
    // A short history window, so that a version can leave it within the test.
    server = await Server.start(['--compat', 'kubernetes', '--storage-backend', 'memory', '--watch-history-window', '2s', '--etcd-compaction-interval', '1s']);
    await server.expect(201, 'POST', LEASES, { body: { metadata: { name: 'one' } } });
    rv = String(meta(await server.expect(200, 'GET', LEASES)).resourceVersion);
  });

  after(async () => {
    await server?.stop();
  });

  test('unset and 0 start with synthetic ADDED events; a version sends only later changes', async () => {
    const unset = await server.request('GET', `${LEASES}?watch=true&timeoutSeconds=1`, { readForMs: 1500 });
    assert.deepEqual(summary(unset.text), ['ADDED one']);
    const zero = await server.request('GET', `${LEASES}?watch=true&resourceVersion=0&timeoutSeconds=1`, { readForMs: 1500 });
    assert.deepEqual(summary(zero.text), ['ADDED one']);
    const fromRv = server.request('GET', `${LEASES}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`, { readForMs: 1500 });
    await server.expect(201, 'POST', LEASES, { body: { metadata: { name: 'two' } } });
    assert.deepEqual(summary((await fromRv).text), ['ADDED two']);
  });

  test('a label selector turns matching changes into ADDED and DELETED; resume from the last version', async () => {
    const start = String(meta(await server.expect(200, 'GET', LEASES)).resourceVersion);
    const watching = server.request('GET', `${LEASES}?watch=true&labelSelector=sel%3Dyes&resourceVersion=${start}&timeoutSeconds=2`, { readForMs: 2500 });
    await server.expect(200, 'PATCH', `${LEASES}/one`, { body: { metadata: { labels: { sel: 'yes' } } }, contentType: MERGE });
    await server.expect(200, 'PATCH', `${LEASES}/one`, { body: { spec: { holderIdentity: 'b' } }, contentType: MERGE });
    await server.expect(200, 'PATCH', `${LEASES}/one`, { body: { metadata: { labels: { sel: 'no' } } }, contentType: MERGE });
    const events = watchEvents((await watching).text);
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    // The DELETED event carries the last state that matched.
    assert.deepEqual(meta(events[2]?.object).labels, { sel: 'yes' });
    const resumeFrom = String(meta(events[1]?.object).resourceVersion);
    const resumed = await server.request('GET', `${LEASES}?watch=true&resourceVersion=${resumeFrom}&timeoutSeconds=1`, { readForMs: 1500 });
    assert.deepEqual(summary(resumed.text), ['MODIFIED one']);
  });

  test('a watch that asked for bookmarks gets one before its timeout', async () => {
    const start = String(meta(await server.expect(200, 'GET', LEASES)).resourceVersion);
    const reply = await server.request('GET', `${LEASES}?watch=true&allowWatchBookmarks=true&resourceVersion=${start}&timeoutSeconds=3`, { readForMs: 3500 });
    const events = watchEvents(reply.text);
    assert.ok(events.length >= 1, 'no event at all');
    assert.equal(events[0]?.type, 'BOOKMARK');
    assert.deepEqual(Object.keys(meta(events[0]?.object)), ['resourceVersion']);
  });

  test('a version that left the history window is a 410 ERROR event', async () => {
    // The server's own 2 s window runs on its wall clock: each look writes a change (the cache
    // lets events go as new ones come) and watches from the first version, until it has left.
    let n = 0;
    const events = await eventually(async () => {
      await server.expect(201, 'POST', LEASES, { body: { metadata: { name: `later-${n++}` } } });
      const reply = await server.request('GET', `${LEASES}?watch=true&resourceVersion=${rv}`, { readForMs: 1500, untilEvents: 1 });
      const got = watchEvents(reply.text);
      return got[0]?.type === 'ERROR' ? got : undefined;
    }, 'the first version to leave the history window');
    assert.equal(events[0]?.type, 'ERROR');
    assert.equal(events[0]?.object.code, 410);
    assert.equal(events[0]?.object.reason, 'Expired');
    assert.match(String(events[0]?.object.message), /^too old resource version: \d+ \(\d+\)$/);
  });
});
