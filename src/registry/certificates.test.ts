// CertificateSigningRequests over the real registry and admission chain: the requester is
// the caller, `approval` changes decisions only and asks the approve permission.
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../apimachinery/types.js';
import { x509 } from '../auth/x509-lib.js';
import { LoopbackClient } from '../server/loopback.js';
import { group } from '../naming/index.js';
import { fixture } from '../testing/admission.js';

const CSR = { group: group('certificates'), version: 'v1', resource: 'certificatesigningrequests' };
const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

async function requestBase64(subject: string): Promise<string> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as { privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey };
  return Buffer.from((await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: alg })).toString('pem')).toString('base64');
}

const spec = (o: KubeObject): Record<string, unknown> => o.spec as Record<string, unknown>;
const conditionTypes = (o: KubeObject): string[] => ((o.status as { conditions?: { type: string }[] } | undefined)?.conditions ?? []).map((c) => c.type);

test('the requester is the caller; approval changes decisions only, for callers who may approve', async () => {
  const f = await fixture({ signerAuthorizer: async (user, verb, name) => user.username === 'carol' && verb === 'approve' && name === 'example.com/*' });
  try {
    const as = (u: UserInfo): LoopbackClient => new LoopbackClient(f.table, u, { admission: f.chain });
    const alice = as({ username: 'alice', uid: 'a-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['x'] } });
    const created = await alice.create(CSR, '', {
      metadata: { name: 'c1' },
      spec: { request: await requestBase64('CN=alice'), signerName: 'example.com/custom', usages: ['client auth'], username: 'mallory', groups: ['system:masters'] },
      status: { conditions: [{ type: 'Approved', status: 'True' }] },
    });
    assert.equal(spec(created).username, 'alice');
    assert.equal(spec(created).uid, 'a-1');
    assert.deepEqual(spec(created).groups, ['devs', 'system:authenticated']);
    assert.deepEqual(spec(created).extra, { scopes: ['x'] });
    assert.deepEqual(conditionTypes(created), [], 'no one creates a pre-approved request');

    // The object itself keeps its spec: the requester cannot be rewritten.
    const relabelled = await f.client.update(CSR, '', { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, spec: { ...spec(created), username: 'mallory' } });
    assert.equal(spec(relabelled).username, 'alice');
    assert.deepEqual(relabelled.metadata?.labels, { a: 'b' });

    assert.equal((await f.client.get(CSR, '', 'c1', 'approval')).metadata?.name, 'c1');

    const approve = (o: KubeObject): KubeObject => ({
      ...o,
      spec: { ...spec(o), usages: ['server auth'] },
      status: { certificate: 'Zm9v', conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'This CSR was approved by kubectl certificate approve.' }] },
    });
    await assert.rejects(as({ username: 'bob', groups: [] }).update(CSR, '', approve(relabelled), 'approval'), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 403);
      assert.equal(e.message, 'certificatesigningrequests.certificates.orch.io "c1" is forbidden: user not permitted to approve requests with signerName "example.com/custom"');
      return true;
    });
    const approved = await as({ username: 'carol', groups: [] }).update(CSR, '', approve(relabelled), 'approval');
    assert.deepEqual(conditionTypes(approved), ['Approved']);
    assert.deepEqual(spec(approved).usages, ['client auth'], 'approval leaves the spec alone');
    assert.equal((approved.status as Record<string, unknown>).certificate, undefined, 'approval sets no certificate');

    // Denying an approved request: the decisions are exclusive.
    await assert.rejects(
      as({ username: 'carol', groups: [] }).patch(CSR, '', 'c1', { status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] } }, 'approval'),
      (e: unknown) => e instanceof ApiError && e.code === 422 && e.message.endsWith('status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive'),
    );
    // The main resource and the status subresource cannot decide.
    const viaStatus = await f.client.update(CSR, '', { ...approved, status: { conditions: [{ type: 'Denied', status: 'True' }] } }, 'status');
    assert.deepEqual(conditionTypes(viaStatus), ['Approved']);
  } finally {
    await f.close();
  }
});

test('v1 refuses the legacy signer', async () => {
  const f = await fixture();
  try {
    await assert.rejects(
      f.client.create(CSR, '', { metadata: { name: 'old' }, spec: { request: await requestBase64('CN=x'), signerName: 'orch.io/legacy-unknown', usages: ['client auth'] } }),
      (e: unknown) =>
        e instanceof ApiError &&
        e.code === 422 &&
        e.message === 'CertificateSigningRequest.certificates.orch.io "old" is invalid: spec.signerName: Invalid value: "orch.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    );
  } finally {
    await f.close();
  }
});

test('a create through update (server-side apply) records the caller as the requester too', async () => {
  const f = await fixture();
  try {
    const store = f.table.lookup({ group: CSR.group, version: CSR.version }, CSR.resource)!;
    const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
    const request = await requestBase64('CN=alice');
    const { object, created } = await store.update!(
      { user: alice, signal: new AbortController().signal, warnings: [] },
      '',
      'applied',
      () => ({ apiVersion: CSR.group + '/v1', kind: 'CertificateSigningRequest', metadata: { name: 'applied' }, spec: { request, signerName: 'example.com/custom', usages: ['client auth'], username: 'mallory', groups: ['system:masters'] } }),
      { dryRun: false, forceAllowCreate: true },
    );
    assert.equal(created, true);
    assert.equal(spec(object).username, 'alice');
    assert.deepEqual(spec(object).groups, ['system:authenticated']);
  } finally {
    await f.close();
  }
});
