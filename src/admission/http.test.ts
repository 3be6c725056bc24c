// The built-in plugins seen over HTTPS, as a client meets them: the whole server in this
// process (memory storage, a free loopback port), the project's HTTPS client.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseFlags } from '../apimachinery/flags.js';
import { authFlagDefinitions } from '../auth/index.js';
import { HttpClient } from '../client/http.js';
import { readKubeconfig } from '../client/kubeconfig.js';
import { serverFlagDefinitions } from '../cli/flags.js';
import { startServer, type RunningServer } from '../cli/server.js';
import { protobufFlagDefinitions } from '../codec/protobuf/index.js';
import { admissionFlagDefinitions } from './flags.js';
import { eventually } from '../testing/wait.js';

const flagDefinitions = [...serverFlagDefinitions, ...authFlagDefinitions, ...admissionFlagDefinitions, ...protobufFlagDefinitions];

describe('built-in admission over HTTPS', () => {
  let server: RunningServer;
  let client: HttpClient;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'orch-admission-'));
    const flags = parseFlags(['--data-dir', dataDir, '--storage-backend', 'memory', '--bind-address', '127.0.0.1', '--secure-port', '0', '--console=false'], flagDefinitions);
    server = await startServer(flags, { log: () => {} });
    await server.started;
    client = new HttpClient(readKubeconfig(server.kubeconfigPath), { timeoutMs: 10_000 });
    const post = async (path: string, body: unknown): Promise<void> => {
      const res = await client.request('POST', path, body);
      assert.ok(res.statusCode === 201 || res.statusCode === 409, `${path}: ${res.statusCode} ${res.body.toString()}`);
    };
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'web' } });
    await post('/api/v1/namespaces/web/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  });

  after(async () => {
    client?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a created pod carries the service account, its token volume, tolerations and priority', async () => {
    const res = await client.request('POST', '/api/v1/namespaces/web/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    assert.equal(res.statusCode, 201, res.body.toString());
    const spec = JSON.parse(res.body.toString()).spec;
    assert.equal(spec.serviceAccountName, 'default');
    assert.match(spec.volumes[0].name, /^orch-api-access-[a-z0-9]{5}$/);
    assert.equal(spec.containers[0].volumeMounts[0].mountPath, '/var/run/secrets/orch.io/serviceaccount');
    assert.equal(spec.tolerations.length, 2);
    assert.equal(spec.priority, 0);
  });

  it('a refusal is a Forbidden Status naming the pod', async () => {
    const res = await client.request('POST', '/api/v1/namespaces/web/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q' }, spec: { serviceAccountName: 'ghost', containers: [{ name: 'c', image: 'nginx' }] } });
    assert.equal(res.statusCode, 403);
    const status = JSON.parse(res.body.toString());
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'Forbidden');
    assert.equal(status.code, 403);
    assert.equal(status.message, 'pods "q" is forbidden: error looking up service account web/ghost: serviceaccount "ghost" not found');
    assert.equal(status.details.name, 'q');
    assert.equal(status.details.kind, 'pods');
  });

  it('a quota is enforced and its status updated; dry run is checked but not counted', async () => {
    const quota = await client.request('POST', '/api/v1/namespaces/web/resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { secrets: '1' } } });
    assert.equal(quota.statusCode, 201, quota.body.toString());
    // The quota limits once the resource quota controller has computed its status.
    await eventually(async () => {
      const got = JSON.parse((await client.request('GET', '/api/v1/namespaces/web/resourcequotas/q')).body.toString()) as { status?: { used?: { secrets?: string } } };
      return got.status?.used?.secrets === '0';
    }, 'the quota status computed');
    const secret = (name: string): unknown => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name } });
    assert.equal((await client.request('POST', '/api/v1/namespaces/web/secrets?dryRun=All', secret('dry'))).statusCode, 201);
    assert.equal((await client.request('POST', '/api/v1/namespaces/web/secrets', secret('s1'))).statusCode, 201);
    const refused = await client.request('POST', '/api/v1/namespaces/web/secrets', secret('s2'));
    assert.equal(refused.statusCode, 403);
    assert.equal(JSON.parse(refused.body.toString()).message, 'secrets "s2" is forbidden: exceeded quota: q, requested: secrets=1, used: secrets=1, limited: secrets=1');
    const status = JSON.parse((await client.request('GET', '/api/v1/namespaces/web/resourcequotas/q')).body.toString()).status;
    assert.deepEqual(status, { hard: { secrets: '1' }, used: { secrets: '1' } });
  });
});
