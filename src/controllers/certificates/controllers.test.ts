// The certificate controllers over the real registry, with a fake clock: the approver asks
// a SubjectAccessReview of the requester, the signer issues or refuses, the cleaner deletes
// on the spec's times.
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../../apimachinery/clock.js';
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import { x509 } from '../../auth/x509-lib.js';
import type { ApiClient } from '../../client/types.js';
import { LoopbackClient } from '../../server/loopback.js';
import { fixture, type Fixture } from '../../testing/admission.js';
import { eventually } from '../../testing/wait.js';
import { DEFAULT_CONTROLLER_OPTIONS, type ControllerDescriptor, type RunningController } from '../types.js';
import { csrApprovingController, csrCleanerController, csrSigningController } from './index.js';
import { csrResource } from './common.js';
import { certificateDurationSeconds, validityPeriod } from './signing.js';
import { cleanupReason } from './cleaner.js';
import { testControllerContext } from '../../testing/controllers.js';
import { discoverFromTable } from '../discovery.js';
import { group, setFlavor } from '../../naming/index.js';
import { signerName } from '../../apis/certificates/signers.js';

// Named in the flavor under test (set before each suite runs).
let CSR = csrResource();
const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
type KeyPair = { privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey };
const START = Date.UTC(2024, 0, 1);
const HOUR = 3600_000;

async function keyPair(): Promise<KeyPair> {
  return (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as KeyPair;
}

async function requestBase64(subject: string, names: { type: 'dns' | 'ip'; value: string }[] = []): Promise<string> {
  const extensions = names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : [];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys: await keyPair(), signingAlgorithm: alg, extensions });
  return Buffer.from(csr.toString('pem')).toString('base64');
}

interface Harness {
  f: Fixture;
  clock: FakeClock;
  ca: InstanceType<typeof x509.X509Certificate>;
  errors: unknown[];
  reviews: Record<string, unknown>[];
  as(user: UserInfo): LoopbackClient;
  start(d: ControllerDescriptor): Promise<RunningController>;
  close(): Promise<void>;
}

/** The registry, a signing CA on disk, and a client whose SubjectAccessReviews answer `allow`. */
async function harness(allow: (review: Record<string, unknown>) => boolean = () => false): Promise<Harness> {
  const clock = new FakeClock(START);
  const f = await fixture({ now: () => clock.now() });
  const dir = await mkdtemp(join(tmpdir(), 'csr-'));
  const caKeys = await keyPair();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=test-signer',
    keys: caKeys,
    signingAlgorithm: alg,
    notBefore: new Date(START - 365 * 24 * HOUR),
    notAfter: new Date(START + 10 * 365 * 24 * HOUR),
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey)],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', caKeys.privateKey)).toString('base64');
  await writeFile(join(dir, 'ca.crt'), ca.toString('pem'));
  await writeFile(join(dir, 'ca.key'), `-----BEGIN PRIVATE KEY-----\n${pkcs8}\n-----END PRIVATE KEY-----\n`);
  const reviews: Record<string, unknown>[] = [];
  // SubjectAccessReviews are served by the auth layer; here they answer as `allow` says.
  const client: ApiClient = Object.assign(Object.create(f.plain) as ApiClient, {
    async create(r: { resource: string }, namespace: string, obj: KubeObject, sub?: { name: string; subresource: string }): Promise<KubeObject> {
      if (r.resource !== 'subjectaccessreviews') return f.plain.create(r as typeof CSR, namespace, obj, sub);
      const spec = obj.spec as Record<string, unknown>;
      reviews.push(spec);
      return { ...obj, status: { allowed: allow(spec) } };
    },
  });
  const running: RunningController[] = [];
  const ctx = testControllerContext(client, {
    clock,
    options: { ...DEFAULT_CONTROLLER_OPTIONS, clusterSigningCertFile: join(dir, 'ca.crt'), clusterSigningKeyFile: join(dir, 'ca.key') },
  });
  const { informers, errors } = ctx;
  return {
    f,
    clock,
    ca,
    errors,
    reviews,
    as: (user) => new LoopbackClient(f.table, user),
    async start(d) {
      // What the manager checks before it starts a controller: its resources are served.
      const served = new Set((await discoverFromTable(f.table)).map((r) => `${r.group}/${r.resource}`));
      for (const r of d.requires ?? []) assert.ok(served.has(`${r.group}/${r.resource}`), `${d.name} requires ${r.resource}.${r.group}, which is not served`);
      const c = await d.start(ctx);
      running.push(c);
      informers.start();
      return c;
    },
    async close() {
      for (const c of running) await c.stop();
      await informers.stop();
      await f.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const conditions = (o: KubeObject): Record<string, unknown>[] => ((o.status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions ?? []);
const NODE_CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];

async function approve(h: Harness, name: string): Promise<KubeObject> {
  const csr = await h.f.plain.get(CSR, '', name);
  return h.f.plain.update(CSR, '', { ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved' }] } }, 'approval');
}

function issuedCertificate(o: KubeObject): InstanceType<typeof x509.X509Certificate> | undefined {
  const c = (o.status as { certificate?: string } | undefined)?.certificate;
  return c ? new x509.X509Certificate(Buffer.from(c, 'base64').toString('latin1')) : undefined;
}

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`certificate controllers (${flavor} flavor)`, () => {
    before(() => {
      setFlavor(flavor);
      CSR = csrResource();
    });
    after(() => setFlavor('orch'));

    describe('csrapproving', () => {
      it('approves a node client request after a SubjectAccessReview of the requester, selfnodeclient first', async () => {
        const h = await harness((review) => (review.resourceAttributes as { subresource: string }).subresource === 'selfnodeclient' && review.user === 'system:node:n1');
        try {
          const node = { username: 'system:node:n1', uid: 'n1-uid', groups: ['system:nodes', 'system:authenticated'] };
          await h.as(node).create(CSR, '', { metadata: { name: 'self' }, spec: { request: await requestBase64('CN=system:node:n1, O=system:nodes'), signerName: signerName('apiserver-client-agent'), usages: NODE_CLIENT_USAGES } });
          // Another node's name with only selfnodeclient allowed: recognized, not approved, retried.
          await h.as(node).create(CSR, '', { metadata: { name: 'other' }, spec: { request: await requestBase64('CN=system:node:n2, O=system:nodes'), signerName: signerName('apiserver-client-agent'), usages: NODE_CLIENT_USAGES } });
          // Not a node client request at all: no review is asked.
          await h.as(node).create(CSR, '', { metadata: { name: 'serving' }, spec: { request: await requestBase64('CN=system:node:n1, O=system:nodes'), signerName: signerName('apiserver-client-agent'), usages: ['server auth'] } });
          await h.start(csrApprovingController());

          const approved = await eventually(async () => {
            const o = await h.f.plain.get(CSR, '', 'self');
            return conditions(o).length > 0 ? o : undefined;
          }, 'the self request approved');
          assert.deepEqual(
            conditions(approved).map((c) => [c.type, c.status, c.reason, c.message]),
            [['Approved', 'True', 'AutoApproved', 'Auto approving self kubelet client certificate after SubjectAccessReview.']],
          );
          await eventually(() => h.errors.some((e) => String(e).includes('recognized csr "other" as [nodeclient] but subject access review was not approved')), 'the refusal reported');
          assert.deepEqual(conditions(await h.f.plain.get(CSR, '', 'other')), []);
          assert.deepEqual(conditions(await h.f.plain.get(CSR, '', 'serving')), []);
          const selfReview = h.reviews.find((r) => r.user === 'system:node:n1' && (r.resourceAttributes as { subresource: string }).subresource === 'selfnodeclient');
          assert.deepEqual(selfReview, {
            user: 'system:node:n1',
            uid: 'n1-uid',
            groups: ['system:nodes', 'system:authenticated'],
            resourceAttributes: { group: group('certificates'), resource: 'certificatesigningrequests', verb: 'create', subresource: 'selfnodeclient' },
          });
        } finally {
          await h.close();
        }
      });
    });

    describe('csrsigning', () => {
      it('issues approved requests with the CA, the usages asked and the shorter lifetime', async () => {
        const h = await harness();
        try {
          await h.as({ username: 'system:node:n1', groups: ['system:nodes'] }).create(CSR, '', {
            metadata: { name: 'node' },
            spec: { request: await requestBase64('CN=system:node:n1, O=system:nodes'), signerName: signerName('apiserver-client-agent'), usages: NODE_CLIENT_USAGES, expirationSeconds: 3600 },
          });
          await h.as({ username: 'alice', groups: [] }).create(CSR, '', {
            metadata: { name: 'pending' },
            spec: { request: await requestBase64('CN=alice'), signerName: signerName('apiserver-client'), usages: ['client auth'] },
          });
          await approve(h, 'node');
          const signer = await h.start(csrSigningController());
          const signed = await eventually(async () => issuedCertificate(await h.f.plain.get(CSR, '', 'node')), 'a certificate');
          assert.equal(signed.subject, 'CN=system:node:n1, O=system:nodes');
          assert.equal(signed.issuer, h.ca.subject);
          assert.ok(await signed.verify({ publicKey: h.ca.publicKey, signatureOnly: true }));
          // Short lifetimes run from now; the start is backdated five minutes.
          assert.equal(signed.notBefore.getTime(), START - 5 * 60_000);
          assert.equal(signed.notAfter.getTime(), START + HOUR);
          assert.deepEqual([...(signed.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [])], ['1.3.6.1.5.5.7.3.2']);
          assert.equal(signed.getExtension(x509.BasicConstraintsExtension)?.ca, false);
          const flags = signed.getExtension(x509.KeyUsagesExtension)?.usages ?? 0;
          assert.equal(flags, x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
          // Not approved: not signed.
          await eventually(() => signer.idle?.() === true, 'the signer idle');
          assert.deepEqual(h.errors, []);
          assert.equal(issuedCertificate(await h.f.plain.get(CSR, '', 'pending')), undefined);
        } finally {
          await h.close();
        }
      });

      for (const [name, signer, subject, usages, message] of [
        ['client usages', 'apiserver-client', 'CN=alice', ['client auth', 'server auth'], 'invalid usage for client certificate: server auth'],
        ['client without client auth', 'apiserver-client', 'CN=alice', ['digital signature'], 'missing required usage for client certificate: client auth'],
        ['node client organization', 'apiserver-client-agent', 'CN=system:node:n1, O=devs', NODE_CLIENT_USAGES, 'subject organization is not system:nodes'],
        ['node client name', 'apiserver-client-agent', 'CN=n1, O=system:nodes', NODE_CLIENT_USAGES, 'subject common name does not begin with system:node:'],
        ['node client usages', 'apiserver-client-agent', 'CN=system:node:n1, O=system:nodes', ['client auth'], 'usages did not match [client auth digital signature key encipherment]'],
        ['node serving names', 'agent-serving', 'CN=system:node:n1, O=system:nodes', ['digital signature', 'key encipherment', 'server auth'], 'DNS or IP subjectAltName is required'],
      ] as const) {
        it(`marks a request the signer refuses Failed: ${name}`, async () => {
          const h = await harness();
          try {
            await h.f.plain.create(CSR, '', { metadata: { name: 'r' }, spec: { request: await requestBase64(subject), signerName: signerName(signer), usages: [...usages] } });
            await approve(h, 'r');
            await h.start(csrSigningController());
            const failed = await eventually(async () => conditions(await h.f.plain.get(CSR, '', 'r')).find((c) => c.type === 'Failed'), 'a Failed condition');
            assert.deepEqual([failed.status, failed.reason, failed.message, failed.lastUpdateTime], ['True', 'SignerValidationFailure', message, '2024-01-01T00:00:00Z']);
            assert.equal(issuedCertificate(await h.f.plain.get(CSR, '', 'r')), undefined);
          } finally {
            await h.close();
          }
        });
      }

      it('signs node serving requests with their addresses, and nothing for signers it does not own', async () => {
        const h = await harness();
        try {
          await h.f.plain.create(CSR, '', {
            metadata: { name: 'serving' },
            spec: { request: await requestBase64('CN=system:node:n1, O=system:nodes', [{ type: 'dns', value: 'n1.example' }, { type: 'ip', value: '10.0.0.1' }]), signerName: signerName('agent-serving'), usages: ['digital signature', 'key encipherment', 'server auth'] },
          });
          await h.f.plain.create(CSR, '', { metadata: { name: 'foreign' }, spec: { request: await requestBase64('CN=x'), signerName: 'example.com/x', usages: ['client auth'] } });
          await approve(h, 'serving');
          await approve(h, 'foreign');
          await h.start(csrSigningController());
          const signed = await eventually(async () => issuedCertificate(await h.f.plain.get(CSR, '', 'serving')), 'a serving certificate');
          assert.deepEqual(signed.getExtension(x509.SubjectAlternativeNameExtension)?.names.items.map((n) => [n.type, n.value]), [['dns', 'n1.example'], ['ip', '10.0.0.1']]);
          // The default lifetime (a year) runs from the backdated start.
          assert.equal(signed.notAfter.getTime(), START - 5 * 60_000 + 365 * 24 * HOUR);
          assert.deepEqual(conditions(await h.f.plain.get(CSR, '', 'foreign')).map((c) => c.type), ['Approved']);
        } finally {
          await h.close();
        }
      });

      it('lifetimes: the configured one, capped by expirationSeconds, never past the CA', () => {
        assert.equal(certificateDurationSeconds(31536000, undefined), 31536000);
        assert.equal(certificateDurationSeconds(31536000, 7200), 7200);
        assert.equal(certificateDurationSeconds(3600, 7200), 3600);
        const now = new Date(START);
        assert.deepEqual(validityPeriod(now, 7200, new Date(START + HOUR)), { notBefore: new Date(START - 300_000), notAfter: new Date(START + HOUR) });
        assert.throws(() => validityPeriod(now, 7200, new Date(START - HOUR)), /the signer has expired: NotAfter=2023-12-31T23:00:00Z/);
      });
    });

    describe('csrcleaner', () => {
      it('deletes pending requests after 24 h, decided ones 1 h after the decision', async () => {
        const h = await harness();
        try {
          const make = async (name: string): Promise<void> => {
            await h.f.plain.create(CSR, '', { metadata: { name }, spec: { request: await requestBase64('CN=system:node:n1, O=system:nodes'), signerName: signerName('apiserver-client-agent'), usages: NODE_CLIENT_USAGES } });
          };
          for (const name of ['pending', 'approved', 'issued', 'denied', 'failed']) await make(name);
          await approve(h, 'approved');
          await approve(h, 'issued');
          await approve(h, 'failed');
          const denied = await h.f.plain.get(CSR, '', 'denied');
          await h.f.plain.update(CSR, '', { ...denied, status: { conditions: [{ type: 'Denied', status: 'True' }] } }, 'approval');
          const failed = await h.f.plain.get(CSR, '', 'failed');
          await h.f.plain.update(CSR, '', { ...failed, status: { conditions: [...conditions(failed), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure' }] } }, 'status');
          await h.start(csrSigningController());
          await eventually(async () => issuedCertificate(await h.f.plain.get(CSR, '', 'issued')), 'issued');
          await eventually(async () => issuedCertificate(await h.f.plain.get(CSR, '', 'approved')), 'issued');

          const cleaner = await h.start(csrCleanerController());
          const names = async (): Promise<string[]> => (await h.f.plain.list(CSR, '')).items.map((o) => o.metadata?.name ?? '').sort();
          const settle = async (): Promise<void> => {
            await eventually(() => cleaner.idle?.() === true, 'the cleaner idle');
          };
          await settle();
          assert.deepEqual(await names(), ['approved', 'denied', 'failed', 'issued', 'pending']);
          h.clock.step(HOUR - 1000);
          await settle();
          assert.deepEqual(await names(), ['approved', 'denied', 'failed', 'issued', 'pending'], 'nothing before the hour');
          h.clock.step(2000);
          // The poll runs hourly: the next one, an hour after the first, finds the decided requests old enough.
          h.clock.step(HOUR);
          await eventually(async () => (await names()).length === 1 && (await names()), 'decided requests gone').catch(async (e: unknown) => {
            throw new Error(`${String(e)}: ${JSON.stringify(await names())} ${h.errors.map(String).join('; ')}`);
          });
          assert.deepEqual(await names(), ['pending']);
          h.clock.step(21 * HOUR);
          await settle();
          assert.deepEqual(await names(), ['pending'], 'pending requests stay a day');
          h.clock.step(2 * HOUR);
          await eventually(async () => (await names()).length === 0, 'the pending request gone');
        } finally {
          await h.close();
        }
      });

      it('deletes requests whose certificate has expired', async () => {
        const now = new Date(START);
        const keys = await keyPair();
        const expired = await x509.X509CertificateGenerator.createSelfSigned({ name: 'CN=x', keys, signingAlgorithm: alg, notBefore: new Date(START - 2 * HOUR), notAfter: new Date(START - 1000) });
        const csr = (cert: string): KubeObject => ({
          metadata: { name: 'c', creationTimestamp: '2024-01-01T00:00:00Z' },
          status: { certificate: Buffer.from(cert).toString('base64'), conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: '2023-12-31T23:59:00Z' }] },
        });
        assert.equal(cleanupReason(csr(expired.toString('pem')), now), 'the associated certificate is expired');
        const live = await x509.X509CertificateGenerator.createSelfSigned({ name: 'CN=x', keys, signingAlgorithm: alg, notBefore: new Date(START - HOUR), notAfter: new Date(START + HOUR) });
        assert.equal(cleanupReason(csr(live.toString('pem')), now), undefined);
      });
    });
  });
}
