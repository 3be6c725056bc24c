import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decodeJwt } from 'jose';
import { FakeClient } from '../../testing/fake-client.js';
import { ServiceAccountTokens } from './serviceaccount.js';
import { keyId, publicKeysFromPem } from './keys.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { definitionOf } from '../../testing/apis.js';

const SA = { group: '', version: 'v1', resource: 'serviceaccounts' };
const serviceAccounts = { definition: definitionOf('', 'serviceaccounts') };
const TOKEN = serviceAccounts.definition.subresources.find((s) => s.name === 'token')!;
const PODS = { group: '', version: 'v1', resource: 'pods' };
const ctx = { user: { username: 'admin', groups: ['system:masters'] }, signal: new AbortController().signal, warnings: [] };

describe('service account tokens', () => {
  const client = new FakeClient();
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const old = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let saUid = '';
  const make = (over: Partial<ConstructorParameters<typeof ServiceAccountTokens>[0]> = {}) =>
    new ServiceAccountTokens({
      issuers: () => ['https://new.example', 'https://old.example'],
      apiAudiences: () => ['https://new.example'],
      signingKey: ec.privateKey,
      verifyKeys: [ec.publicKey, old.publicKey],
      lookup: true,
      client,
      ...over,
    });
  const request = (tokens: ServiceAccountTokens, spec: Record<string, unknown>, name = 'robot') =>
    tokens.tokenRequestStore(serviceAccounts, TOKEN).create!(ctx, 'ns', name, { spec }, { dryRun: false });

  before(async () => {
    saUid = (await client.create(SA, 'ns', { metadata: { name: 'robot', namespace: 'ns' } })).metadata!.uid!;
    await client.create(SA, 'ns', { metadata: { name: 'other', namespace: 'ns' } });
    await client.create(PODS, 'ns', { metadata: { name: 'p', namespace: 'ns' }, spec: { serviceAccountName: 'robot' } });
  });

  it('signs with the first issuer and the key id of the signing key', async () => {
    const out = await request(make(), { audiences: ['https://new.example'], expirationSeconds: 1200 });
    const token = (out['status'] as { token: string }).token;
    const claims = decodeJwt(token);
    assert.equal(claims.iss, 'https://new.example');
    assert.deepEqual(claims.aud, ['https://new.example']);
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 1200);
    assert.deepEqual(claims['orch.io'], { namespace: 'ns', serviceaccount: { name: 'robot', uid: saUid } });
    const r = await make().authenticateToken(token, ['https://new.example']);
    assert.equal(r?.user.username, 'system:serviceaccount:ns:robot');
    assert.equal(r?.user.uid, saUid);
    assert.deepEqual(r?.audiences, ['https://new.example']);
  });

  it('accepts every configured issuer and verification key (rotation)', async () => {
    const oldSigner = make({ issuers: () => ['https://old.example'], signingKey: old.privateKey });
    const token = (await oldSigner.issueBoundToken('ns', { name: 'robot', uid: saUid }, ['https://new.example'], 3600)).token;
    assert.equal((await make().authenticateToken(token, ['https://new.example']))?.user.username, 'system:serviceaccount:ns:robot');
    const stranger = make({ issuers: () => ['https://new.example'], signingKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey });
    const forged = (await stranger.issueBoundToken('ns', { name: 'robot', uid: saUid }, ['https://new.example'], 3600)).token;
    await assert.rejects(make().authenticateToken(forged, ['https://new.example']));
    assert.equal(await make().authenticateToken('not-a-jwt', ['https://new.example']), null);
  });

  it('caps lifetimes at the maximum and validates requests', async () => {
    const capped = await request(make({ maxExpirationSeconds: 900 }), { expirationSeconds: 7200 });
    assert.equal((capped['spec'] as Record<string, unknown>)['expirationSeconds'], 900);
    await assert.rejects(request(make(), { expirationSeconds: 599 }), /may not specify a duration less than 10 minutes/);
    await assert.rejects(request(make(), { expirationSeconds: 2 ** 32 + 1 }), /may not specify a duration larger than 2\^32 seconds/);
    await assert.rejects(request(make(), { boundObjectRef: { kind: 'Node', name: 'n' } }), /spec.boundObjectRef.kind: Unsupported value: "Node": supported values: "Pod", "Secret"/);
    await assert.rejects(request(make(), { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'wrong' } }), (e: Error & { status?: { code: number } }) => e.status?.code === 409 && /does not match the UID in record/.test(e.message));
    await assert.rejects(request(make(), { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } }, 'other'), /pod running with different serviceaccount name/);
    await assert.rejects(request(make(), {}, 'missing'), (e: Error & { status?: { code: number } }) => e.status?.code === 404);
  });

  it('revokes tokens of deleted accounts only when lookups are on', async () => {
    const t = (await client.create(SA, 'ns', { metadata: { name: 'temp', namespace: 'ns' } })) as KubeObject;
    const token = (await make().issueBoundToken('ns', { name: 'temp', uid: t.metadata!.uid! }, ['https://new.example'], 3600)).token;
    await client.delete(SA, 'ns', 'temp');
    await assert.rejects(make().authenticateToken(token, ['https://new.example']), /no longer exists/);
    assert.equal((await make({ lookup: false }).authenticateToken(token, ['https://new.example']))?.user.username, 'system:serviceaccount:ns:temp');
  });

  it('publishes the verification keys and the discovery document', () => {
    const tokens = make();
    const jwks = tokens.jwks() as { keys: Record<string, unknown>[] };
    assert.deepEqual(jwks.keys.map((k) => k['alg']), ['ES256', 'RS256']);
    assert.equal(jwks.keys[0]!['kid'], keyId(ec.publicKey));
    assert.equal(keyId(ec.privateKey), keyId(ec.publicKey));
    assert.deepEqual(tokens.discoveryDocument(), {
      issuer: 'https://new.example',
      jwks_uri: 'https://new.example/openid/v1/jwks',
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256', 'RS256'],
    });
  });

  it('reads public keys from private keys, public keys and certificates in PEM', () => {
    const pem = (k: KeyObject, type: 'pkcs8' | 'spki') => k.export({ type, format: 'pem' }) as string;
    const keys = publicKeysFromPem(pem(ec.privateKey, 'pkcs8') + pem(old.publicKey, 'spki'));
    assert.deepEqual(keys.map(keyId), [keyId(ec.publicKey), keyId(old.publicKey)]);
  });
});
