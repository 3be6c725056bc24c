// The token controllers over the real registry (generic stores, watch caches, memory storage)
// through the in-process client and shared informers, with a FakeClock for expiry.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { flattenedVerify } from 'jose';
import { FakeClock } from '../../apimachinery/clock.js';
import { ApiError, isApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { ServiceAccountTokens } from '../../auth/authn/serviceaccount.js';
import type { ApiClient } from '../../client/types.js';
import type { DeleteOptions } from '../../rest/index.js';
import { LoopbackClient } from '../../server/loopback.js';
import { coreDefinitions, memoryTable } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';
import type { ControllerContext, RunningController } from '../types.js';
import { clusterInfoKubeconfig, ensureClusterInfo } from './cluster-info.js';
import { bootstrapSignerController, serviceAccountTokenController, tokenCleanerController } from './index.js';
import { testControllerContext } from '../../testing/controllers.js';
import { setFlavor } from '../../naming/index.js';

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps' };
const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' };
// The names the controllers use in each flavor.
const NAMES = {
  orch: {
    system: 'orch-system',
    public: 'orch-public',
    bootstrap: 'bootstrap.orch.io/token',
    saToken: 'orch.io/service-account-token',
    saName: 'orch.io/service-account.name',
    saUid: 'orch.io/service-account.uid',
  },
  kubernetes: {
    system: 'kube-system',
    public: 'kube-public',
    bootstrap: 'bootstrap.kubernetes.io/token',
    saToken: 'kubernetes.io/service-account-token',
    saName: 'kubernetes.io/service-account.name',
    saUid: 'kubernetes.io/service-account.uid',
  },
};
// Those of the flavor under test (set before each suite runs).
let N = NAMES.orch;
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

interface Fixture {
  client: ApiClient;
  clock: FakeClock;
  ctx: ControllerContext;
  errors: unknown[];
  close(...running: RunningController[]): Promise<void>;
}

/** `wrap` stands between the controllers and the server (to fail or record calls). */
async function fixture(wrap: (client: ApiClient) => ApiClient = (c) => c): Promise<Fixture> {
  const memory = memoryTable(coreDefinitions('namespaces', 'configmaps', 'secrets', 'serviceaccounts'));
  const client = new LoopbackClient(memory.table, { username: 'admin', groups: ['system:masters'] });
  for (const name of [N.system, N.public, 'team']) await client.create(NAMESPACES, '', { metadata: { name } });
  const wrapped = wrap(client);
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const ctx = testControllerContext(wrapped, { clock });
  const { errors, informers } = ctx;
  return {
    client,
    clock,
    ctx,
    errors,
    async close(...running) {
      for (const r of running) await r.stop();
      await informers.stop();
      await memory.close();
    },
  };
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function bootstrapToken(id: string, secret: string, extra: Record<string, string> = {}): KubeObject {
  const data = { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-signing': 'true', ...extra };
  return { metadata: { name: `bootstrap-token-${id}` }, type: N.bootstrap, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) };
}

async function missing(client: ApiClient, r: typeof SECRETS, ns: string, name: string): Promise<boolean> {
  try {
    await client.get(r, ns, name);
    return false;
  } catch (e) {
    if (isApiError(e) && e.code === 404) return true;
    throw e;
  }
}

/**
 * Until the controller has worked off its queue. Each call below follows either an effect of
 * the events that matter (waited for), or a clock step, which queues what fell due before it
 * returns: once idle, the controller has judged them.
 */
async function settle(running: RunningController): Promise<void> {
  await eventually(() => running.idle?.() ?? true, 'the controller to settle');
}

/** The client's methods bound, so a test can replace one and keep the others. */
function bind(c: ApiClient): ApiClient {
  return {
    get: c.get.bind(c),
    list: c.list.bind(c),
    watch: c.watch.bind(c),
    create: c.create.bind(c),
    update: c.update.bind(c),
    patch: c.patch.bind(c),
    delete: c.delete.bind(c),
  };
}

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`token controllers (${flavor} flavor)`, () => {
    before(() => {
      setFlavor(flavor);
      N = NAMES[flavor];
    });
    after(() => setFlavor('orch'));

    describe('bootstrapsigner', () => {
      it('is off by default and signs cluster-info per signing token, following tokens and cluster-info', async () => {
        assert.equal(bootstrapSignerController.disabledByDefault, true);
        const f = await fixture();
        const { client } = f;
        const kubeconfig = clusterInfoKubeconfig('https://127.0.0.1:6443', CA);
        assert.equal(await ensureClusterInfo(client, 'https://127.0.0.1:6443', CA), true);
        assert.equal(await ensureClusterInfo(client, 'https://127.0.0.1:9999', CA), false);
        await client.create(SECRETS, N.system, bootstrapToken('abcdef', '0123456789abcdef', { expiration: '2024-01-01T01:00:00Z' }));
        await client.create(SECRETS, N.system, bootstrapToken('noauth', '0123456789abcdef', { 'usage-bootstrap-signing': 'false' }));
        await client.create(SECRETS, N.system, bootstrapToken('expird', '0123456789abcdef', { expiration: '2023-12-31T00:00:00Z' }));
        await client.create(SECRETS, 'team', bootstrapToken('elsewh', '0123456789abcdef'));
        const signer = await bootstrapSignerController.start(f.ctx);
        f.ctx.informers.start();
        const data = async (): Promise<Record<string, string>> => ((await client.get(CONFIG_MAPS, N.public, 'cluster-info'))['data'] ?? {}) as Record<string, string>;
        const verify = async (sig: string, content: string, secret: string) => {
          const [p, , s] = sig.split('.') as [string, string, string];
          return flattenedVerify({ protected: p, payload: Buffer.from(content).toString('base64url'), signature: s }, new TextEncoder().encode(secret));
        };
        try {
          const first = await eventually(async () => ((await data())['jws-kubeconfig-abcdef'] ? data() : undefined), 'the first signature');
          assert.deepEqual(Object.keys(first).sort(), ['jws-kubeconfig-abcdef', 'kubeconfig']);
          assert.equal(first['kubeconfig'], kubeconfig);
          assert.equal((await verify(first['jws-kubeconfig-abcdef']!, kubeconfig, '0123456789abcdef')).protectedHeader?.kid, 'abcdef');

          // A second token, then cluster-info edited (a stray signature, another address).
          await client.create(SECRETS, N.system, bootstrapToken('second', 'ffffffffffffffff'));
          const second = await eventually(async () => (await data())['jws-kubeconfig-second'], 'the second signature');
          const cm = await client.get(CONFIG_MAPS, N.public, 'cluster-info');
          const moved = clusterInfoKubeconfig('https://10.0.0.1:6443', CA);
          await client.update(CONFIG_MAPS, N.public, { ...cm, data: { ...(cm['data'] as object), kubeconfig: moved, 'jws-kubeconfig-forged': 'x' } });
          const resigned = await eventually(async () => {
            const d = await data();
            return !d['jws-kubeconfig-forged'] && d['jws-kubeconfig-second'] !== second ? d : undefined;
          }, 'signatures of the new kubeconfig');
          await verify(resigned['jws-kubeconfig-second']!, moved, 'ffffffffffffffff');
          await verify(resigned['jws-kubeconfig-abcdef']!, moved, '0123456789abcdef');

          // A token that goes takes its signature along.
          await client.delete(SECRETS, N.system, 'bootstrap-token-second');
          await eventually(async () => !(await data())['jws-kubeconfig-second'], 'the removed signature');

          // At its expiry (the controller's clock) a token signs no more, though its Secret stays.
          f.clock.step(59 * 60_000);
          await settle(signer);
          assert.ok((await data())['jws-kubeconfig-abcdef']);
          f.clock.step(60_000);
          await eventually(async () => !(await data())['jws-kubeconfig-abcdef'], 'the expired token\'s signature to go');
          assert.deepEqual(Object.keys(await data()), ['kubeconfig']);
          assert.deepEqual(f.errors, []);
        } finally {
          await f.close(signer);
        }
      });
    });

    describe('tokencleaner', () => {
      it('deletes expired bootstrap tokens at expiry, with a uid precondition, and retries failures', async () => {
        assert.equal(tokenCleanerController.disabledByDefault, true);
        const deletes: { name: string; opts: Partial<DeleteOptions> | undefined }[] = [];
        let failNext = 1;
        const f = await fixture((inner) => ({
          ...bind(inner),
          delete: async (r, ns, name, opts) => {
            deletes.push({ name, opts });
            if (name === 'bootstrap-token-flaky' && failNext-- > 0) throw new ApiError(500, 'InternalError', 'storage hiccup');
            return inner.delete(r, ns, name, opts);
          },
        }));
        const { client } = f;
        const make = (id: string, extra: Record<string, string>) => client.create(SECRETS, N.system, bootstrapToken(id, '0123456789abcdef', extra));
        const old = await make('oldone', { expiration: '2023-12-31T23:59:59Z' });
        await make('garble', { expiration: 'next tuesday' });
        await make('later1', { expiration: '2024-01-01T00:10:00Z' });
        await make('flaky', { expiration: '2024-01-01T00:00:00Z' });
        await make('never1', {});
        await client.create(SECRETS, N.system, { metadata: { name: 'opaque' }, type: 'Opaque', data: { expiration: b64('2020-01-01T00:00:00Z') } });
        const cleaner = await tokenCleanerController.start(f.ctx);
        f.ctx.informers.start();
        try {
          await eventually(async () => (await missing(client, SECRETS, N.system, 'bootstrap-token-oldone')) && (await missing(client, SECRETS, N.system, 'bootstrap-token-garble')), 'expired tokens to go');
          await eventually(() => missing(client, SECRETS, N.system, 'bootstrap-token-flaky'), 'the retried deletion');
          assert.equal(f.errors.length, 1);
          assert.deepEqual(deletes.find((d) => d.name === 'bootstrap-token-oldone')?.opts, { preconditions: { uid: old.metadata?.uid } });
          await settle(cleaner);
          assert.equal(await missing(client, SECRETS, N.system, 'bootstrap-token-later1'), false);
          f.clock.step(10 * 60_000 - 1);
          await settle(cleaner);
          assert.equal(await missing(client, SECRETS, N.system, 'bootstrap-token-later1'), false);
          f.clock.step(1);
          await eventually(() => missing(client, SECRETS, N.system, 'bootstrap-token-later1'), 'the token at its expiry');
          f.clock.step(365 * 24 * 3600_000);
          await settle(cleaner);
          assert.equal(await missing(client, SECRETS, N.system, 'bootstrap-token-never1'), false);
          assert.equal(await missing(client, SECRETS, N.system, 'opaque'), false);
          assert.equal(f.clock.waiting(), 0);
        } finally {
          await f.close(cleaner);
        }
      });
    });

    describe('serviceaccount-token', () => {
      const legacyToken = (name: string, account: string, uid?: string): KubeObject => ({
        metadata: { name, annotations: { [N.saName]: account, ...(uid ? { [N.saUid]: uid } : {}) } },
        type: N.saToken,
      });

      it('deletes legacy tokens whose account is gone or was recreated, and unlists deleted tokens', async () => {
        assert.notEqual(serviceAccountTokenController.disabledByDefault, true);
        const f = await fixture();
        const { client } = f;
        const robot = await client.create(SERVICE_ACCOUNTS, 'team', { metadata: { name: 'robot' }, secrets: [{ name: 'robot-token' }, { name: 'kept-ref' }] });
        const other = await client.create(SERVICE_ACCOUNTS, 'team', { metadata: { name: 'other' } });
        await client.create(SECRETS, 'team', legacyToken('robot-token', 'robot', robot.metadata?.uid));
        await client.create(SECRETS, 'team', legacyToken('robot-unpinned', 'robot'));
        await client.create(SECRETS, 'team', legacyToken('other-token', 'other', other.metadata?.uid));
        await client.create(SECRETS, 'team', legacyToken('stale-uid', 'other', 'an-old-uid'));
        await client.create(SECRETS, 'team', legacyToken('nobody-token', 'nobody'));
        await client.create(SECRETS, 'team', { metadata: { name: 'plain' }, type: 'Opaque' });
        const controller = await serviceAccountTokenController.start(f.ctx);
        f.ctx.informers.start();
        try {
          await eventually(async () => (await missing(client, SECRETS, 'team', 'stale-uid')) && (await missing(client, SECRETS, 'team', 'nobody-token')), 'tokens of missing accounts to go');
          await settle(controller);
          for (const name of ['robot-token', 'robot-unpinned', 'other-token', 'plain']) assert.equal(await missing(client, SECRETS, 'team', name), false, name);

          // Deleting a token leaves its account's list; deleting the account takes its tokens.
          await client.delete(SECRETS, 'team', 'robot-token');
          await eventually(async () => ((await client.get(SERVICE_ACCOUNTS, 'team', 'robot'))['secrets'] as unknown[]).length === 1, 'the reference to go');
          assert.deepEqual((await client.get(SERVICE_ACCOUNTS, 'team', 'robot'))['secrets'], [{ name: 'kept-ref' }]);
          await client.delete(SERVICE_ACCOUNTS, 'team', 'robot');
          await eventually(() => missing(client, SECRETS, 'team', 'robot-unpinned'), 'the deleted account\'s tokens to go');
          await settle(controller);
          assert.equal(await missing(client, SECRETS, 'team', 'other-token'), false);
          assert.deepEqual(f.errors, []);
        } finally {
          await f.close(controller);
        }
      });

      it('a legacy token of a deleted account fails authentication before its Secret goes', async () => {
        const f = await fixture();
        const { client } = f;
        try {
          const sa = await client.create(SERVICE_ACCOUNTS, 'team', { metadata: { name: 'temp' } });
          const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
          const tokens = new ServiceAccountTokens({ issuers: () => ['https://orch.example'], apiAudiences: () => ['https://orch.example'], signingKey: key.privateKey, verifyKeys: [key.publicKey], lookup: true, client });
          const token = await tokens.issueLegacyToken('team', { name: 'temp', uid: sa.metadata?.uid ?? '' }, 'temp-token');
          await client.create(SECRETS, 'team', { ...legacyToken('temp-token', 'temp', sa.metadata?.uid), data: { token: b64(token) } });
          assert.equal((await tokens.authenticateToken(token, ['https://orch.example']))?.user.username, 'system:serviceaccount:team:temp');
          await client.delete(SERVICE_ACCOUNTS, 'team', 'temp');
          assert.equal(await missing(client, SECRETS, 'team', 'temp-token'), false);
          await assert.rejects(tokens.authenticateToken(token, ['https://orch.example']), /service account no longer exists/);
          // A new account of the same name does not revive it.
          await client.create(SERVICE_ACCOUNTS, 'team', { metadata: { name: 'temp' } });
          await assert.rejects(tokens.authenticateToken(token, ['https://orch.example']), /service account was recreated/);
        } finally {
          await f.close();
        }
      });
    });
  });
}
