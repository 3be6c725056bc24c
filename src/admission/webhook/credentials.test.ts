import assert from 'node:assert/strict';
import { test } from 'node:test';
import { credentialsFromKubeconfig, credentialsFromPluginConfig, WebhookConfigError } from './credentials.js';

const kubeconfig = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Config',
  users: [
    { name: 'hook.webhooks.svc:8443', user: { token: 'exact' } },
    { name: '*.webhooks.svc', user: { token: 'wildcard' } },
    { name: 'plain.example.com', user: { token: 'no-port' } },
    { name: '*', user: { token: 'star' } },
    { name: 'me', user: { token: 'current' } },
  ],
  contexts: [{ name: 'c', context: { user: 'me' } }],
  'current-context': 'c',
});

test('users are found by host:port, *.domain, host without the default port, then *', () => {
  const find = credentialsFromKubeconfig(kubeconfig, '/');
  assert.equal(find('hook.webhooks.svc:8443')?.token, 'exact');
  assert.equal(find('other.webhooks.svc:443')?.token, 'wildcard');
  assert.equal(find('plain.example.com:443')?.token, 'no-port');
  assert.equal(find('plain.example.com:8443')?.token, 'star');
});

test('without a * user the current context user is used', () => {
  const doc = JSON.parse(kubeconfig) as { users: { name: string }[] };
  doc.users = doc.users.filter((u) => u.name !== '*');
  assert.equal(credentialsFromKubeconfig(JSON.stringify(doc), '/')('elsewhere:443')?.token, 'current');
});

test('kubeConfigFile must be an absolute path', () => {
  assert.equal(credentialsFromPluginConfig({}), undefined);
  assert.throws(() => credentialsFromPluginConfig({ kubeConfigFile: 'relative.yaml' }), WebhookConfigError);
});
