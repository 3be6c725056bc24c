import { test } from 'node:test';
import assert from 'node:assert/strict';
import { certificateSubject } from './x509-subject.js';
import { createCA, issueCert } from '../../testing/pki.js';

test('reads CN and every O, in order, as a full X.509 library does', async () => {
  const ca = await createCA('test-ca');
  const cases: [string, string[]][] = [
    ['admin', ['system:masters']],
    ['jane', ['dev', 'ops,with comma', 'ünïcødé']],
    ['system:node:worker-1', []],
    ['名前', ['grüppe']],
  ];
  for (const [cn, orgs] of cases) {
    const leaf = await issueCert(ca, cn, { orgs });
    assert.deepEqual(certificateSubject(leaf.der), {
      commonName: leaf.cert.subjectName.getField('CN')[0],
      organizations: leaf.cert.subjectName.getField('O'),
    });
    assert.deepEqual(certificateSubject(leaf.der), { commonName: cn, organizations: orgs });
  }
  assert.deepEqual(certificateSubject(ca.der), { commonName: 'test-ca', organizations: [] });
});

test('rejects what is not a certificate', () => {
  assert.throws(() => certificateSubject(new Uint8Array([])), /truncated/);
  assert.throws(() => certificateSubject(new Uint8Array([0x02, 0x01, 0x05])), /not a certificate/);
  assert.throws(() => certificateSubject(new Uint8Array([0x30, 0x84, 0xff, 0xff, 0xff, 0xff])), /truncated/);
});
