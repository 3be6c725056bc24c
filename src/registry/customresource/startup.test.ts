// The whole server: custom resources of the definitions already stored are served as soon as
// the server is ready, without waiting for any controller.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseFlags } from '../../apimachinery/flags.js';
import { authFlagDefinitions } from '../../auth/index.js';
import { admissionFlagDefinitions } from '../../admission/flags.js';
import { HttpClient } from '../../client/http.js';
import { readKubeconfig } from '../../client/kubeconfig.js';
import { serverFlagDefinitions } from '../../cli/flags.js';
import { startServer, type RunningServer } from '../../cli/server.js';
import { protobufFlagDefinitions } from '../../codec/protobuf/index.js';
import { eventually } from '../../testing/wait.js';
import { crdResource } from './registrar.js';

const flagDefinitions = [...serverFlagDefinitions, ...authFlagDefinitions, ...admissionFlagDefinitions, ...protobufFlagDefinitions];
const dataDir = mkdtempSync(join(tmpdir(), 'orch-crd-startup-'));

async function start(): Promise<{ server: RunningServer; client: HttpClient }> {
  const flags = parseFlags(['--data-dir', dataDir, '--storage-backend', 'sqlite', '--bind-address', '127.0.0.1', '--secure-port', '0', '--console=false'], flagDefinitions);
  const server = await startServer(flags, { log: () => {} });
  await server.started;
  return { server, client: new HttpClient(readKubeconfig(server.kubeconfigPath), { timeoutMs: 10_000 }) };
}

after(() => rmSync(dataDir, { recursive: true, force: true }));

test('established definitions are served at start-up, before the server reports ready', async () => {
  const crds = `/apis/${crdResource().group}/v1/customresourcedefinitions`;
  const gizmos = '/apis/example.com/v1/namespaces/default/gizmos';
  {
    const { server, client } = await start();
    try {
      const names = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' };
      const created = await client.request('POST', crds, {
        apiVersion: `${crdResource().group}/v1`,
        kind: 'CustomResourceDefinition',
        metadata: { name: 'gizmos.example.com' },
        spec: { group: 'example.com', scope: 'Namespaced', names, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }] },
      });
      assert.equal(created.statusCode, 201, created.body.toString());
      // The server's own controllers accept the names and establish the definition.
      await eventually(async () => (await client.request('GET', gizmos)).statusCode === 200, 'gizmos served', 5000);
      const gizmo = await client.request('POST', gizmos, { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g' }, spec: {} });
      assert.equal(gizmo.statusCode, 201, gizmo.body.toString());
    } finally {
      client.close();
      await server.stop();
    }
  }
  const { server, client } = await start();
  try {
    const res = await client.request('GET', `${gizmos}/g`);
    assert.equal(res.statusCode, 200, res.body.toString());
  } finally {
    client.close();
    await server.stop();
  }
});
