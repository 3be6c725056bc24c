// Black-box: the project's own HTTPS client against the real server: CRUD, paging, watch,
// errors as Status, and the namespace lifecycle (system namespaces, admission, the
// namespace controller).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '../../src/apimachinery/errors.js';
import type { KubeObject, WatchEvent } from '../../src/apimachinery/types.js';
import { Informer } from '../../src/client/informer.js';
import type { ApiClient } from '../../src/client/types.js';
import { eventually, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const NS = { group: '', version: 'v1', resource: 'namespaces' };
const CM = { group: '', version: 'v1', resource: 'configmaps' };
const SECRET = { group: '', version: 'v1', resource: 'secrets' };

const skip = serverUnavailable();

function isError(code: number, message?: string): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (message !== undefined) assert.equal(e.message, message);
    return true;
  };
}

async function gone(server: TestServer, r: typeof NS, ns: string, name: string): Promise<true | undefined> {
  try {
    await server.client.get(r, ns, name);
    return undefined;
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return true;
    throw e;
  }
}

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`namespaces and the HTTPS client (${flavor} flavor)`, { skip }, () => {
    let server: TestServer;
    const prefix = flavor === 'orch' ? 'orch' : 'kube';
    // The root CA publisher adds this config map to every namespace soon after its creation.
    const rootCA = `${prefix}-root-ca.crt`;
    const rootCAPublished = (ns: string) =>
      eventually(() => server.client.get(CM, ns, rootCA).catch((e: unknown) => (e instanceof ApiError && e.code === 404 ? undefined : Promise.reject(e))), `${rootCA} in ${ns}`);

    before(async () => {
      server = await startTestServer({ flavor });
    });
    after(async () => {
      const code = await server?.stop();
      assert.equal(code, 0, 'the server exits 0 on SIGTERM');
    });

    test('default and the system namespaces exist from the first start', async () => {
      const names = (await server.client.list(NS, '')).items.map((n) => n.metadata?.name);
      for (const n of ['default', `${prefix}-system`, `${prefix}-public`, `${prefix}-node-lease`]) assert.ok(names.includes(n), `${n} in ${names.join(',')}`);
    });

    test('CRUD, conflicts and paging of config maps', async () => {
      const c = server.client;
      await c.create(NS, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'crud' } });
      await rootCAPublished('crud');
      const created = await c.create(CM, 'crud', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: '1' } });
      assert.equal(created.metadata?.namespace, 'crud');
      assert.ok(created.metadata?.uid);
      await assert.rejects(c.create(CM, 'crud', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' } }), isError(409, 'configmaps "one" already exists'));
      const updated = await c.update(CM, 'crud', { ...created, data: { a: '2' } });
      assert.deepEqual(updated.data, { a: '2' });
      await assert.rejects(
        c.update(CM, 'crud', { ...created, data: { a: '3' } }),
        isError(409, 'Operation cannot be fulfilled on configmaps "one": the object has been modified; please apply your changes to the latest version and try again'),
      );
      const patched = await c.patch(CM, 'crud', 'one', { metadata: { labels: { tier: 'x' } }, data: { a: null, b: '2' } });
      assert.deepEqual(patched.data, { b: '2' });
      for (let i = 0; i < 5; i++) await c.create(CM, 'crud', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `page-${i}` } });
      const seen: string[] = [];
      let cont: string | undefined;
      let rv: string | undefined;
      do {
        const page = await c.list(CM, 'crud', { limit: 2, continue: cont });
        assert.ok(page.items.length <= 2);
        rv ??= page.metadata.resourceVersion;
        assert.equal(page.metadata.resourceVersion, rv, 'every page from one snapshot');
        seen.push(...page.items.map((i) => i.metadata!.name!));
        cont = page.metadata.continue || undefined;
      } while (cont);
      assert.deepEqual(seen, [rootCA, 'one', 'page-0', 'page-1', 'page-2', 'page-3', 'page-4'].sort());
      await c.delete(CM, 'crud', 'one');
      await assert.rejects(c.get(CM, 'crud', 'one'), isError(404, 'configmaps "one" not found'));
    });

    test('watch from a list resourceVersion sees the changes after it', async () => {
      const c = server.client;
      await c.create(NS, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } });
      // Listed after the publisher's config map, so that the watch sees only the changes below.
      await rootCAPublished('watched');
      const list = await c.list(CM, 'watched');
      const ac = new AbortController();
      const events: WatchEvent[] = [];
      const watching = (async () => {
        for await (const e of c.watch(CM, 'watched', { resourceVersion: list.metadata.resourceVersion }, ac.signal)) {
          events.push(e);
          if (events.length === 3) ac.abort();
        }
      })();
      await c.create(CM, 'watched', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w' } });
      await c.patch(CM, 'watched', 'w', { data: { k: 'v' } });
      await c.delete(CM, 'watched', 'w');
      await Promise.race([watching, new Promise((_, reject) => setTimeout(() => reject(new Error('watch timed out')), 15_000))]);
      assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata?.name}`), ['ADDED w', 'MODIFIED w', 'DELETED w']);
    });

    test('the Informer over HTTPS misses nothing when the server ends its watches', async () => {
      const c = server.client;
      await c.create(NS, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'informed' } });
      await c.create(SECRET, 'informed', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'first' } });
      // Secrets: nothing in the server creates them on its own, so the log holds only the
      // changes below (the root CA publisher's config map arrives at a moment of its choosing).
      const errors: unknown[] = [];
      // One-second watches: each change below is made once the informer has resumed its watch
      // after the server ended the one before, and must reach it all the same.
      let watches = 0;
      const counting = new Proxy(c, {
        get(target, prop, receiver) {
          if (prop === 'watch') return (...args: Parameters<ApiClient['watch']>) => (watches++, target.watch(...args));
          const value: unknown = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const informer = new Informer(counting, SECRET, { namespace: 'informed', watchTimeoutSeconds: 1, onError: (e) => errors.push(e) });
      const log: string[] = [];
      informer.addEventHandler({
        onAdd: (o) => log.push(`add ${o.metadata?.name}`),
        onUpdate: (a, b) => {
          if (a.metadata?.resourceVersion !== b.metadata?.resourceVersion) log.push(`update ${b.metadata?.name}`);
        },
        onDelete: (o) => log.push(`delete ${o.metadata?.name}`),
      });
      informer.start();
      try {
        await informer.waitForSync();
        for (let i = 0; i < 3; i++) {
          await eventually(() => (watches >= i + 2 ? true : undefined), `watch ${i + 2}`);
          await c.create(SECRET, 'informed', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `later-${i}` } });
        }
        await c.patch(SECRET, 'informed', 'first', { data: { x: Buffer.from('y').toString('base64') } });
        await c.delete(SECRET, 'informed', 'later-0');
        await eventually(() => (log.includes('delete later-0') ? true : undefined), 'the last event');
        assert.deepEqual(log, ['add first', 'add later-0', 'add later-1', 'add later-2', 'update first', 'delete later-0']);
        assert.deepEqual(informer.listKeys().sort(), ['informed/first', 'informed/later-1', 'informed/later-2']);
        assert.deepEqual(errors, []);
      } finally {
        await informer.stop();
      }
    });

    test('content in a missing namespace is 404', async () => {
      await assert.rejects(
        server.client.create(CM, 'nowhere', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }),
        isError(404, 'namespaces "nowhere" not found'),
      );
    });

    test('default and the system and public namespaces may not be deleted', async () => {
      for (const name of ['default', `${prefix}-system`, `${prefix}-public`]) {
        await assert.rejects(server.client.delete(NS, '', name), isError(403, `namespaces "${name}" is forbidden: this namespace may not be deleted`));
      }
    });

    test('a deleted namespace terminates, refuses new content, is emptied and disappears', async () => {
      const c = server.client;
      await c.create(NS, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
      await c.create(CM, 'doomed', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
      await c.create(CM, 'doomed', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' } });
      await c.delete(NS, '', 'doomed');
      const terminating = await c.get(NS, '', 'doomed');
      assert.equal((terminating.status as { phase?: string }).phase, 'Terminating');
      await assert.rejects(
        c.create(CM, 'doomed', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } }),
        isError(403, 'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated'),
      );
      await eventually(() => gone(server, CM, 'doomed', 'plain'), 'the content to be deleted');
      const waiting = await eventually(async () => {
        const ns = await c.get(NS, '', 'doomed');
        const conditions = (ns.status as { conditions?: { type: string; status: string; message: string }[] }).conditions ?? [];
        return conditions.find((x) => x.type === 'NamespaceFinalizersRemaining' && x.status === 'True') ? ns : undefined;
      }, 'the finalizers condition');
      assert.ok((waiting as KubeObject).metadata?.deletionTimestamp);
      await c.patch(CM, 'doomed', 'held', { metadata: { finalizers: null } });
      await eventually(() => gone(server, NS, '', 'doomed'), 'the namespace to disappear');
    });
  });
}
