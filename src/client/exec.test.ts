// Credential plugins end to end: a plugin script written here, a kubeconfig naming it by a
// path relative to the config, and an HTTPS server that records what the client presents.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FakeClock } from '../apimachinery/clock.js';
import { setFlavor } from '../naming/index.js';
import { createCA, issueCert, type TestCert } from '../testing/pki.js';
import { ExecAuthenticator, parseExecCredential } from './exec.js';
import { HttpClient } from './http.js';
import type { ExecConfig } from './kubeconfig.js';

setFlavor('orch');

const V1 = 'client.authentication.orch.io/v1';
const V1BETA1 = 'client.authentication.orch.io/v1beta1';
const CM = { group: '', version: 'v1', resource: 'configmaps' };

// The plugin counts its runs in a file, keeps the ExecCredential it was given, and answers
// with the token `tok-<run>` or the certificate `cert-<run>.pem` of its directory.
const PLUGIN = `#!/usr/bin/env node
const fs = require('fs');
const path = require('path');
const dir = __dirname;
const countFile = path.join(dir, 'runs');
const run = (fs.existsSync(countFile) ? Number(fs.readFileSync(countFile, 'utf8')) : 0) + 1;
fs.writeFileSync(countFile, String(run));
fs.writeFileSync(path.join(dir, 'input-' + run + '.json'), process.env.ORCH_EXEC_INFO || '');
const status = {};
if (process.env.MODE === 'cert') {
  status.clientCertificateData = fs.readFileSync(path.join(dir, 'cert-' + run + '.pem'), 'utf8');
  status.clientKeyData = fs.readFileSync(path.join(dir, 'key-' + run + '.pem'), 'utf8');
} else {
  status.token = 'tok-' + run + (process.argv[2] || '');
}
if (process.env.TTL_MS) status.expirationTimestamp = new Date(Date.now() + Number(process.env.TTL_MS)).toISOString();
if (process.env.EXPIRES_AT) status.expirationTimestamp = process.env.EXPIRES_AT;
process.stdout.write(JSON.stringify({ apiVersion: process.env.ANSWER_VERSION, kind: 'ExecCredential', status }));
`;

let ca: TestCert;
let server: Server;
let url: string;
const revoked = new Set<string>();
/** Authorization header or client certificate CN of each request, in order. */
const presented: string[] = [];

before(async () => {
  ca = await createCA('exec-test-ca');
  const serving = await issueCert(ca, 'server', { usage: 'server', ips: ['127.0.0.1'] });
  server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const who = req.headers.authorization ?? (peer && peer.subject ? `cn=${peer.subject.CN}` : 'anonymous');
    presented.push(who);
    const ok = who !== 'anonymous' && !revoked.has(who);
    res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(ok ? { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' } } : { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', message: 'Unauthorized', code: 401 }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

interface Setup {
  dir: string;
  client: HttpClient;
  runs(): number;
  input(run: number): { apiVersion: string; kind: string; spec: { interactive: boolean; cluster?: Record<string, unknown> } };
  done(): void;
}

function setup(exec: Record<string, unknown>, env: Record<string, string>, files: Record<string, string> = {}): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'exec-plugin-'));
  writeFileSync(join(dir, 'plugin'), PLUGIN);
  chmodSync(join(dir, 'plugin'), 0o755);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server: url, 'certificate-authority-data': Buffer.from(ca.certPem).toString('base64') } }],
    users: [{ name: 'u', user: { exec: { command: './plugin', env: Object.entries(env).map(([name, value]) => ({ name, value })), ...exec } } }],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
  };
  writeFileSync(join(dir, 'config'), JSON.stringify(config));
  const client = HttpClient.fromKubeconfig(join(dir, 'config'));
  return {
    dir,
    client,
    runs: () => Number(readFileSync(join(dir, 'runs'), 'utf8')),
    input: (run) => JSON.parse(readFileSync(join(dir, `input-${run}.json`), 'utf8')) as ReturnType<Setup['input']>,
    done: () => {
      client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('a plugin token is sent, and cached while it is valid', async () => {
  presented.length = 0;
  const s = setup({ apiVersion: V1, interactiveMode: 'Never', args: ['-x'], provideClusterInfo: true }, { ANSWER_VERSION: V1, TTL_MS: '3600000' });
  try {
    await s.client.get(CM, 'ns', 'a');
    await s.client.get(CM, 'ns', 'a');
    assert.equal(s.runs(), 1);
    assert.deepEqual(presented, ['Bearer tok-1-x', 'Bearer tok-1-x']);
    const input = s.input(1);
    assert.equal(input.apiVersion, V1);
    assert.equal(input.kind, 'ExecCredential');
    assert.equal(input.spec.interactive, false);
    assert.equal(input.spec.cluster?.server, url);
    assert.equal(Buffer.from(String(input.spec.cluster?.['certificate-authority-data']), 'base64').toString(), ca.certPem);
  } finally {
    s.done();
  }
});

test('a plugin credential is used until its expirationTimestamp, then the plugin runs again (on the injected clock)', async () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const s = setup({ apiVersion: V1, interactiveMode: 'Never' }, {});
  const exec: ExecConfig = { command: join(s.dir, 'plugin'), args: [], env: [{ name: 'ANSWER_VERSION', value: V1 }, { name: 'EXPIRES_AT', value: '2024-01-01T00:00:01.500Z' }], apiVersion: V1, provideClusterInfo: false, interactiveMode: 'Never' };
  const auth = new ExecAuthenticator(exec, { server: url, namespace: '' }, { now: () => clock.now().getTime(), stdinIsTerminal: () => false });
  try {
    const first = await auth.credentials();
    assert.deepEqual(first, { token: 'tok-1', expiresAt: Date.UTC(2024, 0, 1, 0, 0, 1, 500) });
    clock.step(1500);
    assert.equal(await auth.credentials(), first, 'valid up to its expiry');
    assert.equal(s.runs(), 1);
    clock.step(1);
    assert.equal((await auth.credentials()).token, 'tok-2', 'fetched again after it');
    assert.equal(s.runs(), 2);
  } finally {
    s.done();
  }
});

test('a 401 drops a cached token without expiry and the next request runs the plugin again', async () => {
  presented.length = 0;
  const s = setup({ apiVersion: V1BETA1 }, { ANSWER_VERSION: V1BETA1 });
  try {
    await s.client.get(CM, 'ns', 'a');
    revoked.add('Bearer tok-1');
    await assert.rejects(s.client.get(CM, 'ns', 'a'), (e: { code?: number }) => e.code === 401);
    await s.client.get(CM, 'ns', 'a');
    await s.client.get(CM, 'ns', 'a');
    assert.equal(s.runs(), 2);
    assert.deepEqual(presented, ['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2', 'Bearer tok-2']);
    // v1beta1 without interactiveMode means IfAvailable; a test's standard input is no terminal.
    assert.equal(s.input(1).spec.interactive, false);
    assert.equal(s.input(1).spec.cluster, undefined);
  } finally {
    s.done();
  }
});

test('a plugin certificate is presented, and a new one after a 401 opens new connections', async () => {
  presented.length = 0;
  const files: Record<string, string> = {};
  for (const n of [1, 2]) {
    const c = await issueCert(ca, `plugin-user-${n}`, { usage: 'client' });
    files[`cert-${n}.pem`] = c.certPem;
    files[`key-${n}.pem`] = c.keyPem;
  }
  const s = setup({ apiVersion: V1, interactiveMode: 'IfAvailable' }, { ANSWER_VERSION: V1, MODE: 'cert' }, files);
  try {
    await s.client.get(CM, 'ns', 'a');
    revoked.add('cn=plugin-user-1');
    await assert.rejects(s.client.get(CM, 'ns', 'a'), (e: { code?: number }) => e.code === 401);
    await s.client.get(CM, 'ns', 'a');
    assert.deepEqual(presented, ['cn=plugin-user-1', 'cn=plugin-user-1', 'cn=plugin-user-2']);
    assert.equal(s.runs(), 2);
  } finally {
    s.done();
  }
});

test('an answer in another apiVersion than configured is refused', async () => {
  const s = setup({ apiVersion: V1, interactiveMode: 'Never' }, { ANSWER_VERSION: V1BETA1 });
  try {
    await assert.rejects(s.client.get(CM, 'ns', 'a'), {
      message: `getting credentials: exec plugin is configured to use API version ${V1}, plugin returned version ${V1BETA1}`,
    });
  } finally {
    s.done();
  }
});

test('interactiveMode Always without a terminal and a missing command fail with kubectl wording', async () => {
  const always = setup({ apiVersion: V1, interactiveMode: 'Always' }, { ANSWER_VERSION: V1 });
  try {
    await assert.rejects(always.client.get(CM, 'ns', 'a'), /getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal/);
  } finally {
    always.done();
  }
  const missing = setup({ apiVersion: V1, interactiveMode: 'Never', command: 'no-such-plugin-anywhere', installHint: 'install it with make' }, { ANSWER_VERSION: V1 });
  try {
    await assert.rejects(missing.client.get(CM, 'ns', 'a'), { message: 'getting credentials: exec: executable no-such-plugin-anywhere not found\n\ninstall it with make' });
  } finally {
    missing.done();
  }
});

test('answers kubectl refuses: no status, neither token nor pair, half a pair, not an ExecCredential', () => {
  const answer = (status: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', status, ...extra });
  assert.throws(() => parseExecCredential(answer(undefined), V1), { message: "exec plugin didn't return a status field" });
  assert.throws(() => parseExecCredential(answer({}), V1), { message: "exec plugin didn't return a token or cert/key pair" });
  assert.throws(() => parseExecCredential(answer({ clientCertificateData: 'c' }), V1), { message: 'exec plugin returned only certificate or key, not both' });
  assert.throws(() => parseExecCredential(answer({ token: 't' }, { kind: 'Secret' }), V1), /decoding stdout: kind "Secret" is not ExecCredential/);
  assert.throws(() => parseExecCredential('token', V1), /decoding stdout/);
  assert.throws(() => parseExecCredential(answer({ token: 't', expirationTimestamp: 'tomorrow' }), V1), /expirationTimestamp "tomorrow"/);
  assert.deepEqual(parseExecCredential(answer({ token: 't', expirationTimestamp: '2030-01-02T03:04:05Z' }), V1), { token: 't', expiresAt: Date.UTC(2030, 0, 2, 3, 4, 5) });
});
