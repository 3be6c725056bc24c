// The pure parts of the token controllers: bootstrap token Secrets as the controllers read
// them, the detached signature against Kubernetes' own test vectors, cluster-info's kubeconfig.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flattenedVerify } from 'jose';
import { parse } from 'yaml';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { bootstrapTokenNamespace, bootstrapTokenSecretType, parseRFC3339, signingToken, tokenExpiration, tokenIdFromSecretName } from './bootstrap-token.js';
import { clusterInfoKubeconfig, clusterInfoNamespace } from './cluster-info.js';
import { serviceAccountTokenType } from './serviceaccount-token.js';
import { detachedSignature } from './jws.js';
import { signedClusterInfoData } from './bootstrapsigner.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const NOW = new Date(Date.UTC(2024, 0, 1));

function token(data: Record<string, string>, name = 'bootstrap-token-abcdef', type = 'bootstrap.orch.io/token'): KubeObject {
  return { metadata: { name, namespace: 'orch-system' }, type, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) };
}

const SIGNING = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-signing': 'true' };

describe('bootstrap token Secrets', () => {
  it('read expiration as Go parses RFC 3339: unparseable counts as expired', () => {
    const exp = (e?: string) => tokenExpiration(token(e === undefined ? SIGNING : { ...SIGNING, expiration: e }), NOW);
    assert.deepEqual(exp(), { expired: false, remainingMs: 0 });
    assert.deepEqual(exp('2024-01-01T00:01:00Z'), { expired: false, remainingMs: 60_000 });
    assert.deepEqual(exp('2024-01-01T01:00:00.5+01:00'), { expired: false, remainingMs: 500 });
    assert.deepEqual(exp('2024-01-01T00:00:00Z'), { expired: true, remainingMs: 0 });
    assert.deepEqual(exp('2023-12-31T23:59:59Z'), { expired: true, remainingMs: 0 });
    for (const bad of ['tomorrow', '2024-02-31T00:00:00Z', '2024-01-02 00:00:00Z', '2024-01-02T00:00:00', '2024-01-02T24:00:00Z']) {
      assert.deepEqual(exp(bad), { expired: true, remainingMs: 0 }, bad);
    }
    assert.equal(parseRFC3339('2024-02-29T12:00:00Z'), Date.UTC(2024, 1, 29, 12));
    assert.equal(parseRFC3339('2023-02-29T12:00:00Z'), undefined);
  });

  it('sign only when named after their id, with a secret, unexpired and marked for signing', () => {
    assert.deepEqual(signingToken(token(SIGNING), NOW), { id: 'abcdef', secret: '0123456789abcdef' });
    assert.equal(signingToken(token(SIGNING, 'bootstrap-token-zzzzzz'), NOW), undefined);
    assert.equal(signingToken(token(SIGNING, 'token-abcdef'), NOW), undefined);
    assert.equal(signingToken(token(SIGNING, undefined, 'Opaque'), NOW), undefined);
    assert.equal(signingToken(token({ ...SIGNING, 'usage-bootstrap-signing': 'yes' }), NOW), undefined);
    assert.equal(signingToken(token({ ...SIGNING, 'token-secret': '' }), NOW), undefined);
    assert.equal(signingToken(token({ ...SIGNING, expiration: '2023-01-01T00:00:00Z' }), NOW), undefined);
    assert.equal(tokenIdFromSecretName('bootstrap-token-abc123'), 'abc123');
    assert.equal(tokenIdFromSecretName('bootstrap-token-ABC123'), undefined);
  });
});

describe('detached signatures', () => {
  // k8s.io/cluster-bootstrap token/jws test vectors (v0.27).
  const content = 'Hello from the other side. I must have called a thousand times.';
  it('match Kubernetes: HS256 keyed by the token secret, kid the token id, no payload part', async () => {
    assert.equal(await detachedSignature(content, 'joshua', 'my voice is my passcode'), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8');
    assert.equal(await detachedSignature('', 'joshua', 'my voice is my passcode'), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..7Ui1ALizW4jXphVUB7xUqC9vLYLL9RZeOFfVLoB7Tgk');
  });

  it('verify with jose once the payload is put back', async () => {
    const sig = await detachedSignature(content, 'abcdef', '0123456789abcdef');
    const [protectedHeader, payload, signature] = sig.split('.') as [string, string, string];
    assert.equal(payload, '');
    assert.doesNotMatch(sig, /=/);
    const jws = { protected: protectedHeader, payload: Buffer.from(content).toString('base64url'), signature };
    const out = await flattenedVerify(jws, new TextEncoder().encode('0123456789abcdef'));
    assert.deepEqual(out.protectedHeader, { alg: 'HS256', kid: 'abcdef' });
    await assert.rejects(flattenedVerify(jws, new TextEncoder().encode('abcdef.0123456789abcdef')));
  });
});

describe('cluster-info', () => {
  const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  it('holds a kubeconfig in kubeadm\'s shape that clients read', () => {
    const text = clusterInfoKubeconfig('https://127.0.0.1:6443', ca);
    assert.equal(
      text,
      `apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: ${b64(ca)}\n    server: https://127.0.0.1:6443\n  name: ""\n` +
        'contexts: null\ncurrent-context: ""\nkind: Config\npreferences: {}\nusers: null\n',
    );
    const parsed = parse(text) as { clusters: { cluster: Record<string, string> }[] };
    assert.equal(Buffer.from(parsed.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString(), ca);
  });

  it('signing replaces stale signatures, drops strays, keeps other keys (even __proto__) and reports no change when in step', async () => {
    const data: Record<string, unknown> = JSON.parse('{"kubeconfig":"k","__proto__":"kept","jws-kubeconfig-gone00":"x","jws-kubeconfig-abcdef":"stale"}') as Record<string, unknown>;
    const tokens = new Map([['abcdef', '0123456789abcdef'], ['zzzzzz', 'ffffffffffffffff']]);
    const next = await signedClusterInfoData(data, tokens);
    assert.ok(next);
    assert.deepEqual(Object.keys(next).sort(), ['__proto__', 'jws-kubeconfig-abcdef', 'jws-kubeconfig-zzzzzz', 'kubeconfig']);
    assert.equal(Object.getOwnPropertyDescriptor(next, '__proto__')?.value, 'kept');
    assert.equal(next['jws-kubeconfig-abcdef'], await detachedSignature('k', 'abcdef', '0123456789abcdef'));
    assert.equal(await signedClusterInfoData(next, tokens), undefined);
    assert.equal(await signedClusterInfoData({ other: 'x' }, tokens), undefined);
  });
});

describe('names in both flavors', () => {
  it('spells types and namespaces through the naming module', () => {
    assert.deepEqual([bootstrapTokenSecretType(), bootstrapTokenNamespace(), clusterInfoNamespace(), serviceAccountTokenType()], ['bootstrap.orch.io/token', 'orch-system', 'orch-public', 'orch.io/service-account-token']);
    setFlavor('kubernetes');
    try {
      assert.deepEqual([bootstrapTokenSecretType(), bootstrapTokenNamespace(), clusterInfoNamespace(), serviceAccountTokenType()], ['bootstrap.kubernetes.io/token', 'kube-system', 'kube-public', 'kubernetes.io/service-account-token']);
    } finally {
      setFlavor('orch');
    }
  });
});
