import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { KubeconfigError, parseKubeconfig, readKubeconfig, renderKubeconfig } from './kubeconfig.js';

const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n';

test('a rendered kubeconfig reads back to the same connection settings', () => {
  const text = renderKubeconfig({ server: 'https://127.0.0.1:6443', caPem: CA, clientCertPem: CERT, clientKeyPem: KEY, user: 'admin', cluster: 'orch' });
  const config = parseKubeconfig(text);
  assert.equal(config.server, 'https://127.0.0.1:6443');
  assert.equal(config.caPem, CA);
  assert.equal(config.clientCertPem, CERT);
  assert.equal(config.clientKeyPem, KEY);
  assert.equal(config.token, undefined);
  assert.match(text, /current-context: admin@orch/);
  assert.match(text, /certificate-authority-data: /);
});

test('file references resolve against the kubeconfig directory and tokens are read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
  writeFileSync(join(dir, 'ca.crt'), CA);
  writeFileSync(join(dir, 'token'), 'abc.def\n');
  const path = join(dir, 'config');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: other',
      'clusters:',
      '- name: c',
      '  cluster: { server: "https://example:443/", certificate-authority: ca.crt }',
      'users:',
      '- name: u',
      '  user: { tokenFile: token }',
      'contexts:',
      '- name: other',
      '  context: { cluster: c, user: u, namespace: team }',
    ].join('\n'),
  );
  const config = readKubeconfig(path);
  rmSync(dir, { recursive: true, force: true });
  assert.equal(config.server, 'https://example:443');
  assert.equal(config.caPem, CA);
  assert.equal(config.token, 'abc.def');
  assert.equal(config.namespace, 'team');
});

test('missing pieces are reported', () => {
  assert.throws(() => parseKubeconfig('apiVersion: v1\nkind: Config\n'), KubeconfigError);
  assert.throws(() => parseKubeconfig('current-context: x\ncontexts: []\n'), /context "x" not found/);
  assert.throws(() => parseKubeconfig(': : :\n  - ['), KubeconfigError);
});
