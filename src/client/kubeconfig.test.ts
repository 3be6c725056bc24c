import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execInfoEnv, setFlavor } from '../naming/index.js';
import { execPluginApiVersion, KubeconfigError, parseKubeconfig, readKubeconfig, renderKubeconfig } from './kubeconfig.js';

setFlavor('orch');

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

/** A one-context config as JSON (a YAML subset) with the given cluster and user bodies. */
const configWith = (cluster: Record<string, unknown>, user: Record<string, unknown>): string =>
  JSON.stringify({
    'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server: 'https://example:6443', ...cluster } }],
    users: [{ name: 'dev', user }],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'dev' } }],
  });

test('exec: v1 requires interactiveMode, v1beta1 defaults it to IfAvailable, other versions are refused', () => {
  const exec = (e: Record<string, unknown>) => configWith({}, { exec: { command: 'plugin', ...e } });
  assert.throws(() => parseKubeconfig(exec({ apiVersion: 'client.authentication.orch.io/v1' })), {
    name: 'KubeconfigError',
    message: 'interactiveMode must be specified for dev to use exec authentication plugin',
  });
  assert.equal(parseKubeconfig(exec({ apiVersion: 'client.authentication.orch.io/v1beta1' })).exec?.interactiveMode, 'IfAvailable');
  assert.equal(parseKubeconfig(exec({ apiVersion: 'client.authentication.orch.io/v1', interactiveMode: 'Never' })).exec?.interactiveMode, 'Never');
  assert.throws(() => parseKubeconfig(exec({ apiVersion: 'client.authentication.orch.io/v1', interactiveMode: 'Sometimes' })), {
    message: 'invalid interactiveMode for dev: "Sometimes"',
  });
  assert.throws(() => parseKubeconfig(exec({ apiVersion: 'client.authentication.orch.io/v1alpha1' })), {
    message: 'exec plugin: invalid apiVersion "client.authentication.orch.io/v1alpha1"',
  });
  assert.throws(() => parseKubeconfig(exec({})), { message: 'apiVersion must be specified for dev to use exec authentication plugin' });
  assert.throws(() => parseKubeconfig(configWith({}, { exec: { apiVersion: 'client.authentication.orch.io/v1beta1' } })), {
    message: 'command must be specified for dev to use exec authentication plugin',
  });
  assert.throws(() => parseKubeconfig(exec({ apiVersion: 'client.authentication.orch.io/v1beta1', env: [{ value: 'x' }] })), {
    message: 'env variable name must be specified for dev to use exec authentication plugin',
  });
});

test('exec: each flavor reads its own plugin protocol group, and the plugin input names its own environment variable', () => {
  const exec = (apiVersion: string) => configWith({}, { exec: { command: 'plugin', apiVersion, interactiveMode: 'Never' } });
  const groups = { orch: 'client.authentication.orch.io', kubernetes: 'client.authentication.k8s.io' } as const;
  const env = { orch: 'ORCH_EXEC_INFO', kubernetes: 'KUBERNETES_EXEC_INFO' } as const;
  try {
    for (const flavor of ['orch', 'kubernetes'] as const) {
      setFlavor(flavor);
      const other = groups[flavor === 'orch' ? 'kubernetes' : 'orch'];
      for (const version of ['v1', 'v1beta1']) assert.equal(parseKubeconfig(exec(`${groups[flavor]}/${version}`)).exec?.apiVersion, `${groups[flavor]}/${version}`);
      assert.throws(() => parseKubeconfig(exec(`${other}/v1`)), { message: `exec plugin: invalid apiVersion "${other}/v1"` });
      assert.equal(execInfoEnv(), env[flavor]);
    }
  } finally {
    setFlavor('orch');
  }
});

test('execPluginApiVersion names the plugin protocol of the context\'s user, unchecked, and nothing for anything else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-kubeconfig-peek-'));
  try {
    const write = (name: string, text: string): string => {
      const file = join(dir, name);
      writeFileSync(file, text);
      return file;
    };
    const stock = write('stock', configWith({}, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'p' } }));
    assert.equal(execPluginApiVersion(stock), 'client.authentication.k8s.io/v1');
    assert.equal(execPluginApiVersion(stock, { context: 'nope' }), undefined);
    assert.equal(execPluginApiVersion(write('token', configWith({}, { token: 't' }))), undefined);
    assert.equal(execPluginApiVersion(join(dir, 'missing')), undefined);
    // Hostile shapes: a file that is no mapping, lists that are not lists, prototype names.
    for (const text of ['- a\n- b', ': : :', '{"contexts": 5, "current-context": "c"}', '{"current-context": "__proto__", "contexts": [{"name": "__proto__", "context": {"user": "__proto__"}}], "users": {"__proto__": 1}}']) {
      assert.equal(execPluginApiVersion(write('hostile', text)), undefined, text);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('exec: a command with a separator resolves against the config directory, a bare one stays for PATH', () => {
  const exec = (command: string) =>
    configWith({ extensions: [{ name: 'client.authentication.orch.io/exec', extension: { audience: 'a' } }] }, {
      exec: { command, apiVersion: 'client.authentication.orch.io/v1beta1', args: ['--x'], env: [{ name: 'A', value: '1' }], provideClusterInfo: true },
    });
  const rel = parseKubeconfig(exec('./bin/plugin'), { baseDir: '/etc/orch' }).exec;
  assert.equal(rel?.command, '/etc/orch/bin/plugin');
  assert.deepEqual(rel?.args, ['--x']);
  assert.deepEqual(rel?.env, [{ name: 'A', value: '1' }]);
  assert.equal(rel?.provideClusterInfo, true);
  assert.deepEqual(rel?.clusterConfig, { audience: 'a' });
  assert.equal(parseKubeconfig(exec('plugin'), { baseDir: '/etc/orch' }).exec?.command, 'plugin');
  assert.equal(parseKubeconfig(exec('/opt/plugin'), { baseDir: '/etc/orch' }).exec?.command, '/opt/plugin');
});

test('exec is not used when the user also has a token, as kubectl prefers the token', () => {
  const config = parseKubeconfig(configWith({}, { token: 't', exec: { command: 'p', apiVersion: 'client.authentication.orch.io/v1beta1' } }));
  assert.equal(config.token, 't');
  assert.equal(config.exec, undefined);
});

test('client certificates from files, a certificate without key, insecure-skip-tls-verify, proxy-url', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
  try {
    writeFileSync(join(dir, 'c.crt'), CERT);
    writeFileSync(join(dir, 'c.key'), KEY);
    writeFileSync(join(dir, 'config'), configWith({ 'insecure-skip-tls-verify': true }, { 'client-certificate': 'c.crt', 'client-key': 'c.key' }));
    const config = readKubeconfig(join(dir, 'config'));
    assert.equal(config.clientCertPem, CERT);
    assert.equal(config.clientKeyPem, KEY);
    assert.equal(config.insecureSkipTlsVerify, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  assert.throws(() => parseKubeconfig(configWith({}, { 'client-certificate-data': b64(CERT) })), {
    message: 'client-key-data or client-key must be specified for dev to use the clientCert authentication method.',
  });
  assert.throws(() => parseKubeconfig(configWith({ 'insecure-skip-tls-verify': true, 'certificate-authority-data': b64(CA) }, {})), {
    message: 'specifying a root certificates file with the insecure flag is not allowed',
  });
  assert.throws(() => parseKubeconfig(configWith({ 'proxy-url': 'http://proxy:3128' }, {})), KubeconfigError);
  assert.throws(() => parseKubeconfig(configWith({ 'proxy-url': 'http://proxy:3128' }, {})), /cluster "k" sets proxy-url, which this client does not support/);
});
