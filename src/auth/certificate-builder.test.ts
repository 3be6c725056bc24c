// The certificate builder's DER: what node:crypto (OpenSSL) reads back, the encodings Go's
// strict parser insists on, and damaged issuer certificates refused with an error.
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { derToPem, distinguishedName, issueCertificate, issuerOf, selfIssuer } from './certificate-builder.js';

const year = 365 * 86_400_000;
const ec = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });

function makeCA(): { der: Buffer; key: ReturnType<typeof ec>['privateKey'] } {
  const { publicKey, privateKey } = ec();
  const subject = distinguishedName('test-ca');
  const der = issueCertificate({ serial: Buffer.alloc(16, 0x11), subject, publicKey, notBefore: new Date(), notAfter: new Date(Date.now() + year), ca: true }, selfIssuer(subject, privateKey));
  return { der, key: privateKey };
}

test('a leaf with IPv4, IPv6 and DNS names, a serial with leading zero bytes, and a date past 2049', () => {
  const ca = makeCA();
  const { publicKey } = ec();
  const serial = Buffer.from([0, 0, 0x7f, ...Buffer.alloc(13, 1)]);
  const der = issueCertificate(
    { serial, subject: distinguishedName('leaf', ['g1', 'g2']), publicKey, notBefore: new Date('2049-12-31T23:59:59Z'), notAfter: new Date('2050-01-01T00:00:01Z'), usage: 'server', hosts: ['example.test', '10.1.2.3', '::1', 'fd00::12:3'] },
    issuerOf(ca.der, ca.key),
  );
  const cert = new X509Certificate(derToPem(der));
  const caCert = new X509Certificate(ca.der);
  assert.ok(cert.checkIssued(caCert) && cert.verify(caCert.publicKey));
  // The serial's leading zero bytes are dropped: DER integers are minimal.
  assert.equal(cert.serialNumber.toUpperCase(), serial.subarray(2).toString('hex').toUpperCase());
  assert.equal(cert.subject, 'O=g1\nO=g2\nCN=leaf');
  assert.equal(cert.checkHost('example.test'), 'example.test');
  assert.equal(cert.checkIP('10.1.2.3'), '10.1.2.3');
  assert.equal(cert.checkIP('::1'), '::1');
  assert.equal(cert.checkIP('fd00::12:3'), 'fd00::12:3');
  assert.equal(new Date(cert.validFrom).toISOString(), '2049-12-31T23:59:59.000Z');
  assert.equal(new Date(cert.validTo).toISOString(), '2050-01-01T00:00:01.000Z');
  // UTCTime (tag 0x17) before 2050, GeneralizedTime (0x18) from then on.
  assert.ok(der.includes(Buffer.from([0x17, 13, ...Buffer.from('491231235959Z')])));
  assert.ok(der.includes(Buffer.from([0x18, 15, ...Buffer.from('20500101000001Z')])));
});

test('an issuer keeps the subject bytes and key identifier of its certificate', () => {
  const ca = makeCA();
  const issuer = issuerOf(derToPem(ca.der), ca.key);
  assert.ok(ca.der.includes(issuer.subject));
  assert.equal(issuer.keyId?.length, 20);
});

test('a damaged issuer certificate is refused with an error', () => {
  const { der, key } = makeCA();
  const bad: Buffer[] = [
    Buffer.alloc(0),
    Buffer.from([0x30]),
    der.subarray(0, der.length - 10),
    Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]),
    Buffer.from([0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]),
    Buffer.alloc(4096, 0x30),
  ];
  for (const b of bad) assert.throws(() => issuerOf(b, key), Error, b.toString('hex').slice(0, 40));
  assert.throws(() => issuerOf('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', key), /CERTIFICATE/);
});
