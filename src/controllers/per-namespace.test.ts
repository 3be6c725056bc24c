// The service account controller and the root CA publisher over the real registry.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { LoopbackClient } from '../server/loopback.js';
import { setFlavor } from '../naming/index.js';
import { buildResourceTable } from '../registry/index.js';
import { createStorage } from '../storage/index.js';
import { startControllers } from './index.js';
import { systemPriorityClasses } from './priority-classes.js';
import { eventually } from '../testing/wait.js';

const NS = { group: '', version: 'v1', resource: 'namespaces' };
const SA = { group: '', version: 'v1', resource: 'serviceaccounts' };
const CM = { group: '', version: 'v1', resource: 'configmaps' };
const admin = { username: 'admin', groups: ['system:masters'] };
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

async function find(client: LoopbackClient, r: typeof SA, ns: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(r, ns, name);
  } catch (e) {
    if (isApiError(e) && e.code === 404) return undefined;
    throw e;
  }
}

/** A memory store with the built-in resources, a client on it, and the root CA in a file. */
async function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'root-ca-'));
  const caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, CA);
  const storage = await createStorage({ backend: 'memory' });
  const table = buildResourceTable(builtinResourceDefinitions({ runtimeConfig: '' }), storage);
  return { dir, caFile, storage, table, client: new LoopbackClient(table, admin) };
}

for (const flavor of ['orch', 'kubernetes'] as const) {
  test(`every active namespace gets a default ServiceAccount and the root CA ConfigMap, kept as they should be (${flavor})`, async () => {
    setFlavor(flavor);
    const { dir, caFile, storage, table, client } = await fixture();
    const errors: string[] = [];
    const running = startControllers({ client, table, serviceAccounts: true, rootCAFile: caFile, onError: (name, err) => errors.push(`${name}: ${String(err)}`) });
    const cmName = flavor === 'orch' ? 'orch-root-ca.crt' : 'kube-root-ca.crt';
    const description = flavor === 'orch' ? 'orch.io/description' : 'kubernetes.io/description';
    try {
      await client.create(NS, '', { metadata: { name: 'team' } });
      const sa = await eventually(() => find(client, SA, 'team', 'default'), 'the default service account');
      assert.equal(sa.metadata?.namespace, 'team');
      const cm = await eventually(() => find(client, CM, 'team', cmName), 'the root CA ConfigMap');
      assert.deepEqual(cm.data, { 'ca.crt': CA });
      if (flavor === 'kubernetes') {
        assert.equal(
          cm.metadata?.annotations?.[description],
          'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
        );
      }

      // Deleted or edited, they come back as they were.
      await client.delete(SA, 'team', 'default');
      await eventually(async () => ((await find(client, SA, 'team', 'default'))?.metadata?.uid !== sa.metadata?.uid ? (await find(client, SA, 'team', 'default')) : undefined), 'the account to return');
      await client.update(CM, 'team', { ...cm, data: { 'ca.crt': 'tampered', extra: 'x' } });
      await eventually(async () => ((await find(client, CM, 'team', cmName))?.data?.['ca.crt' as never] === CA ? true : undefined), 'the CA to be put back');
      assert.deepEqual((await client.get(CM, 'team', cmName)).data, { 'ca.crt': CA });
      assert.deepEqual(errors, []);
    } finally {
      await running.stop();
      await table.stop();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
      setFlavor('orch');
    }
  });
}

test('the system priority classes are the two critical classes', () => {
  assert.deepEqual(
    systemPriorityClasses().map((pc) => [pc.metadata?.name, pc.value]),
    [
      ['system-node-critical', 2000001000],
      ['system-cluster-critical', 2000000000],
    ],
  );
});

test('the controllers are not idle until their informers have told them of every namespace and the objects are made', async () => {
  setFlavor('kubernetes');
  const { dir, caFile, storage, table, client } = await fixture();
  // Namespaces that exist before the controllers start: the initial list must be worked off.
  const names = Array.from({ length: 20 }, (_, i) => `pre-${i}`);
  for (const name of names) await client.create(NS, '', { metadata: { name } });
  const running = startControllers({ client, table, serviceAccounts: true, rootCAFile: caFile });
  try {
    assert.equal(running.idle(), false);
    // Idle must hold over several turns in a row, as the library's settled() asks.
    let quiet = 0;
    while (quiet < 3) {
      await new Promise<void>((r) => setImmediate(r));
      quiet = running.idle() ? quiet + 1 : 0;
    }
    for (const name of names) {
      assert.ok(await find(client, SA, name, 'default'), `the default ServiceAccount of ${name} exists once idle`);
      assert.ok(await find(client, CM, name, 'kube-root-ca.crt'), `the root CA ConfigMap of ${name} exists once idle`);
    }
  } finally {
    await running.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
