// Black-box, the whole server on each durable backend: custom resources written in a
// non-storage version survive a restart, are read back in every served version, and their
// watches resume from a resourceVersion as built-ins' do. etcd runs when its binary is on PATH.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { etcdSkip, startEtcd, type EtcdServer } from '../../testing/etcd.js';
import { createCA, type TestCert } from '../../testing/pki.js';
import { startAuthTestServer, type AuthTestServer } from '../../testing/server.js';
import { eventually } from '../../testing/wait.js';

const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
const gadgets = (version: string): string => `/apis/example.com/${version}/namespaces/default/gadgets`;

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
const definition = {
  apiVersion: 'apiextensions.orch.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', kind: 'Gadget' },
    versions: [
      { name: 'v1', served: true, storage: true, schema },
      { name: 'v2', served: true, storage: false, schema },
    ],
  },
};
const gadget = (name: string, version: string, size: number) => ({ apiVersion: `example.com/${version}`, kind: 'Gadget', metadata: { name }, spec: { size } });

interface WatchEvent {
  type: string;
  object: { apiVersion: string; metadata: { name: string; resourceVersion: string }; code?: number; reason?: string; message?: string };
}

/** The events a watch from `rv` delivers within a short window (the watch is then cut). */
function watchEvents(s: AuthTestServer, path: string, rv: string, want: number): Promise<WatchEvent[]> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${path}?watch=true&resourceVersion=${rv}&timeoutSeconds=5`, s.url);
    const events: WatchEvent[] = [];
    let buffered = '';
    const req = request(url, { ca: s.serverCA, cert: s.admin.cert!.certPem, key: s.admin.cert!.keyPem, agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line) events.push(JSON.parse(line) as WatchEvent);
          if (events.length >= want) {
            req.destroy();
            resolve(events);
          }
        }
      });
      res.on('end', () => resolve(events));
    });
    req.on('error', (err) => (events.length >= want ? undefined : reject(err)));
    req.end();
  });
}

interface Backend {
  name: string;
  skip: false | string;
  args(): string[];
  setUp?(): Promise<void>;
  tearDown?(): Promise<void>;
}

let etcd: EtcdServer | undefined;
const BACKENDS: Backend[] = [
  { name: 'sqlite', skip: false, args: () => ['--storage-backend=sqlite'] },
  {
    name: 'etcd',
    skip: etcdSkip(),
    args: () => ['--storage-backend=etcd', `--etcd-servers=${etcd!.clientUrl}`],
    async setUp() {
      etcd = await startEtcd();
    },
    async tearDown() {
      await etcd?.stop();
    },
  },
];

for (const backend of BACKENDS) {
  describe(`custom resources on the ${backend.name} backend`, { skip: backend.skip }, () => {
    const dataDir = mkdtempSync(join(tmpdir(), `orch-crd-${backend.name}-`));
    let clientCA: TestCert;
    let s: AuthTestServer | undefined;
    const start = async (): Promise<AuthTestServer> => (s = await startAuthTestServer(backend.args(), { dataDir, clientCA }));

    before(async () => {
      clientCA = await createCA('storage-client-ca');
      await backend.setUp?.();
    });
    after(async () => {
      await s?.stop();
      await backend.tearDown?.();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('keeps custom resources across a restart, stored in the storage version, served in each', async () => {
      let server = await start();
      const created = await server.request('POST', CRDS, server.admin, definition);
      assert.equal(created.status, 201, created.text);
      await eventually(async () => ((await server.request('GET', gadgets('v2'), server.admin)).status === 200 ? true : undefined), 'gadgets served', 10_000);
      const a = await server.request('POST', gadgets('v2'), server.admin, gadget('a', 'v2', 1));
      assert.equal(a.status, 201, a.text);
      assert.equal(a.json.apiVersion, 'example.com/v2');
      const b = await server.request('POST', gadgets('v1'), server.admin, gadget('b', 'v1', 2));
      assert.equal(b.status, 201, b.text);
      const rvA = (a.json.metadata as { resourceVersion: string }).resourceVersion;
      await server.stop();
      s = undefined;

      server = await start();
      for (const version of ['v1', 'v2']) {
        const got = await server.request('GET', `${gadgets(version)}/a`, server.admin);
        assert.equal(got.status, 200, got.text);
        assert.equal(got.json.apiVersion, `example.com/${version}`);
        assert.deepEqual(got.json.spec, { size: 1 });
        const list = await server.request('GET', gadgets(version), server.admin);
        assert.deepEqual(
          (list.json.items as { apiVersion: string; metadata: { name: string } }[]).map((i) => `${i.apiVersion} ${i.metadata.name}`),
          [`example.com/${version} a`, `example.com/${version} b`],
        );
      }
      const crd = await server.request('GET', `${CRDS}/gadgets.example.com`, server.admin);
      assert.deepEqual((crd.json.status as { storedVersions: string[] }).storedVersions, ['v1']);

      // As on Kubernetes, the restarted watch cache begins at the current revision: a watch from
      // before the restart is told to relist, one from the list after it resumes there.
      const tooOld = await watchEvents(server, gadgets('v2'), rvA, 1);
      assert.deepEqual(tooOld.map((e) => [e.type, e.object.code, e.object.reason]), [['ERROR', 410, 'Expired']]);
      assert.match(String(tooOld[0]!.object.message), /^too old resource version: /);
      const listed = await server.request('GET', gadgets('v1'), server.admin);
      const watching = watchEvents(server, gadgets('v2'), (listed.json.metadata as { resourceVersion: string }).resourceVersion, 2);
      const updated = await server.request('PUT', `${gadgets('v2')}/a`, server.admin, { ...(await server.request('GET', `${gadgets('v2')}/a`, server.admin)).json, spec: { size: 3 } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((await server.request('POST', gadgets('v1'), server.admin, gadget('c', 'v1', 4))).status, 201);
      const events = await watching;
      assert.deepEqual(
        events.map((e) => `${e.type} ${e.object.apiVersion} ${e.object.metadata.name}`),
        ['MODIFIED example.com/v2 a', 'ADDED example.com/v2 c'],
      );
    });

    it('deletes the custom resources with their definition, durably', async () => {
      const server = s!;
      const deleted = await server.request('DELETE', `${CRDS}/gadgets.example.com`, server.admin);
      assert.equal(deleted.status, 200, deleted.text);
      await eventually(async () => ((await server.request('GET', `${CRDS}/gadgets.example.com`, server.admin)).status === 404 ? true : undefined), 'the definition to go', 15_000);
      await server.stop();
      s = undefined;
      const again = await start();
      const recreated = await again.request('POST', CRDS, again.admin, definition);
      assert.equal(recreated.status, 201, recreated.text);
      await eventually(async () => ((await again.request('GET', gadgets('v1'), again.admin)).status === 200 ? true : undefined), 'gadgets served again', 10_000);
      const list = await again.request('GET', gadgets('v1'), again.admin);
      assert.deepEqual(list.json.items, []);
    });
  });
}
