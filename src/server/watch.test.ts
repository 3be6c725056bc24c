// Watch over HTTPS: event framing, ends of streams, errors before and after the first byte.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { resourceExpired } from '../apimachinery/errors.js';
import type { KubeObject, WatchEvent } from '../apimachinery/types.js';
import { metaGroup } from '../naming/index.js';
import type { RESTStore } from '../rest/index.js';
import { startTestServer, type TestServer } from '../testing/api-server.js';
import { eventually } from '../testing/wait.js';

type Ev = { type: string; object: KubeObject & Record<string, unknown> };

let t: TestServer;
const CM = '/api/v1/namespaces/w/configmaps';

/** A store whose watch yields one event, then fails; or fails before the first event. */
function flakyStore(failEarly: boolean): RESTStore {
  return {
    definition: {
      group: 'flaky.testing',
      version: 'v1',
      resource: failEarly ? 'early' : 'late',
      kind: 'Flaky',
      singularName: 'flaky',
      namespaced: false,
      shortNames: [],
      categories: [],
      // Watches are served at the list's route, so the resource declares both.
      verbs: ['list', 'watch'],
      subresources: [],
      preferred: true,
    },
    async watch(): Promise<AsyncIterable<WatchEvent>> {
      if (failEarly) throw resourceExpired('too old resource version: 1 (5)');
      return (async function* () {
        yield { type: 'ADDED', object: { apiVersion: 'flaky.testing/v1', kind: 'Flaky', metadata: { name: 'a', resourceVersion: '7' } } } as WatchEvent;
        throw resourceExpired('too old resource version: 7 (9)');
      })();
    },
  };
}

function collect(path: string, headers: Record<string, string> = {}): { events: Ev[]; done: Promise<number>; close(): void; waitFor(n: number): Promise<void> } {
  const events: Ev[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const s = t.stream(
    path,
    (line) => {
      events.push(JSON.parse(line) as Ev);
      for (const w of waiters.splice(0)) {
        if (events.length >= w.n) w.resolve();
        else waiters.push(w);
      }
    },
    headers,
  );
  return {
    events,
    done: s.done,
    close: s.close,
    waitFor: (n) =>
      events.length >= n
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`timed out waiting for ${n} events, have ${JSON.stringify(events)}`)), 10_000);
            waiters.push({
              n,
              resolve: () => {
                clearTimeout(timer);
                resolve();
              },
            });
          }),
  };
}

before(async () => {
  t = await startTestServer();
  t.table.add(flakyStore(true));
  t.table.add(flakyStore(false));
  await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'w' } } });
  await t.request('POST', CM, { body: { metadata: { name: 'pre' } } });
});
after(async () => {
  await t.close();
});

describe('watch', () => {
  it('streams synthetic ADDED events, then changes, one JSON document per line', async () => {
    const w = collect(`${CM}?watch=true`);
    await w.waitFor(1);
    assert.deepEqual([w.events[0]!.type, w.events[0]!.object.metadata?.name], ['ADDED', 'pre']);
    await t.request('POST', CM, { body: { metadata: { name: 'c1' } } });
    await t.request('PATCH', `${CM}/c1`, { body: { data: { a: 'b' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    await t.request('DELETE', `${CM}/c1`);
    await w.waitFor(4);
    assert.deepEqual(
      w.events.slice(1).map((e) => `${e.type} ${e.object.metadata?.name}`),
      ['ADDED c1', 'MODIFIED c1', 'DELETED c1'],
    );
    w.close();
    await w.done;
  });

  it('ends the stream at timeoutSeconds, and watches one object by name on the legacy path', async () => {
    const w = collect('/api/v1/watch/namespaces/w/configmaps/pre?timeoutSeconds=1');
    const code = await w.done;
    assert.equal(code, 200);
    assert.deepEqual(w.events.map((e) => e.object.metadata?.name), ['pre']);
  });

  it('keeps a watch with a timeoutSeconds too large for a timer open instead of ending it at once', async () => {
    // 2147484 s is just over 2^31-1 ms, where a timer would fire after 1 ms: a change made once
    // the watch has sent its first event must still reach it.
    const w = collect(`${CM}?watch=1&timeoutSeconds=2147484`);
    await w.waitFor(1);
    await t.request('POST', CM, { body: { metadata: { name: 'after-long-timeout' } } });
    const outcome = await Promise.race([w.done.then(() => 'ended'), w.waitFor(2).then(() => 'delivered')]);
    w.close();
    await w.done;
    assert.equal(outcome, 'delivered', JSON.stringify(w.events));
    assert.equal(w.events[1]?.object.metadata?.name, 'after-long-timeout');
    await t.request('DELETE', `${CM}/after-long-timeout`);
  });

  it('answers an error before the first event as an HTTP error', async () => {
    const r = await t.request('GET', '/apis/flaky.testing/v1/early?watch=true');
    assert.equal(r.status, 410);
    assert.equal(r.json().reason, 'Expired');
  });

  it('reports an error after the first event as an ERROR event with the Status, then ends', async () => {
    const w = collect('/apis/flaky.testing/v1/late?watch=true');
    assert.equal(await w.done, 200);
    assert.deepEqual(w.events.map((e) => e.type), ['ADDED', 'ERROR']);
    assert.equal(w.events[1]!.object.kind, 'Status');
    assert.equal(w.events[1]!.object.code, 410);
  });

  it('streams Table rows, with the column definitions on the first event only', async () => {
    const w = collect(`${CM}?watch=true`, { Accept: `application/json;as=Table;v=v1;g=${metaGroup()}` });
    await w.waitFor(1);
    await t.request('POST', CM, { body: { metadata: { name: 't2' } } });
    await w.waitFor(2);
    w.close();
    const [first, second] = w.events as [Ev, Ev];
    assert.equal(first.object.kind, 'Table');
    assert.ok(Array.isArray(first.object.columnDefinitions));
    assert.equal(second.object.columnDefinitions, null);
    assert.equal(((second.object.rows as { cells: unknown[] }[])[0]!.cells)[0], 't2');
  });

  it('refuses YAML for watch with 406', async () => {
    const r = await t.request('GET', `${CM}?watch=true`, { headers: { Accept: 'application/yaml' } });
    assert.equal(r.status, 406);
  });

  it('watchers sharing one HTTP/2 connection each get every event of a burst of writes once, in resourceVersion order', async () => {
    const ns = 'burst';
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
    const rv = (await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json().metadata?.resourceVersion;
    const session = http2.connect(`https://127.0.0.1:${t.port}`, { ca: t.caPem, cert: t.admin.cert, key: t.admin.key });
    const writes = 40;
    try {
      const watchers = Array.from({ length: 25 }, () => {
        const lines: Ev[] = [];
        let rest = '';
        const stream = session.request({ ':path': `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}` });
        stream.setEncoding('utf8');
        const complete = new Promise<void>((resolve, reject) => {
          stream.on('data', (chunk: string) => {
            const parts = (rest + chunk).split('\n');
            rest = parts.pop()!;
            for (const line of parts) lines.push(JSON.parse(line) as Ev);
            if (lines.length >= writes) resolve();
          });
          stream.on('error', reject);
          stream.on('close', () => reject(new Error(`closed after ${lines.length} events`)));
        });
        const ready = new Promise((resolve) => stream.once('response', resolve));
        return { lines, complete, ready };
      });
      await Promise.all(watchers.map((w) => w.ready));
      // Concurrent writes: several events reach the watchers in one turn.
      await Promise.all(Array.from({ length: writes }, (_, i) => t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `b${i}` } } })));
      await Promise.all(watchers.map((w) => w.complete));
      for (const w of watchers) {
        assert.equal(w.lines.length, writes);
        const rvs = w.lines.map((e) => Number(e.object.metadata?.resourceVersion));
        assert.deepEqual(rvs, [...rvs].sort((a, b) => a - b), 'in resourceVersion order');
        assert.equal(new Set(w.lines.map((e) => e.object.metadata?.name)).size, writes, 'each event once');
        assert.ok(w.lines.every((e) => e.type === 'ADDED'));
      }
      assert.deepEqual(watchers[0]!.lines, watchers[24]!.lines);
    } finally {
      session.destroy();
    }
  });

  it('ends open watches when the server shuts down', async () => {
    const other = await startTestServer();
    try {
      await other.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'w' } } });
      await other.request('POST', CM, { body: { metadata: { name: 'before' } } });
      const lines: string[] = [];
      const s = other.stream(`${CM}?watch=true`, (l) => lines.push(l));
      // The watch is open once it sent the existing object's ADDED event.
      await eventually(() => lines.length > 0, 'the watch to send its initial event');
      await other.server.shutdown({ drainTimeoutMs: 5000 });
      assert.equal(await s.done, 200);
    } finally {
      await other.close();
    }
  });
});
