// kubectl against a custom resource definition added to the resource table, in the
// kubernetes flavor: `api-resources` and `get <category>` read discovery, `explain` reads
// the OpenAPI v3 document of the group-version (and v2 when asked).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { JSONSchemaProps } from '../apimachinery/jsonschema.js';
import { renderKubeconfig } from '../client/kubeconfig.js';
import { setFlavor } from '../naming/index.js';
import { buildResourceTable, servedDefinitions } from '../registry/index.js';
import { widgetDefinition } from '../testing/registry.js';
import type { ResourceDefinition } from '../rest/index.js';
import { openapiHandler } from '../schema/openapi/index.js';
import { startTestServer, type TestServer } from '../testing/api-server.js';

const KUBECTL = (process.env['PATH'] ?? '')
  .split(delimiter)
  .filter(Boolean)
  .map((d) => join(d, 'kubectl'))
  .find((p) => existsSync(p));

const GROUP = 'stable.example.com';

const SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      description: 'The desired schedule.',
      properties: {
        cronSpec: { type: 'string', description: 'When to run, in cron format.' },
        replicas: { type: 'integer', minimum: 1, description: 'How many copies run.' },
        port: { 'x-kubernetes-int-or-string': true, description: 'A port by number or name.' },
      },
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
  },
};

function cronTabs(): ResourceDefinition {
  return {
    ...widgetDefinition(),
    group: GROUP,
    version: 'v1',
    resource: 'crontabs',
    kind: 'CronTab',
    singularName: 'crontab',
    shortNames: ['ct'],
    categories: ['all', 'schedules'],
    subresources: [{ name: 'status', kind: 'CronTab', verbs: ['get', 'patch', 'update'], serving: { by: 'status' } }],
    preferred: true,
    storage: { group: GROUP, resource: 'crontabs', version: 'v1' },
    customResource: { crdName: `crontabs.${GROUP}`, crdUID: 'uid-crontabs', schema: SCHEMA },
  };
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('kubectl sees a custom resource (kubernetes flavor)', { skip: KUBECTL ? false : 'kubectl is not installed' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-discovery-kubectl-'));
  const kubeconfig = join(dir, 'kubeconfig');
  let s: TestServer | undefined;

  const kubectl = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(KUBECTL!, [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dir, 'cache')}`, ...args], { timeout: 30_000, env: { ...process.env, HOME: dir } }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });

  before(async () => {
    setFlavor('kubernetes');
    s = await startTestServer({ openapi: openapiHandler(() => (s ? servedDefinitions(s.table) : [])) });
    const crons = buildResourceTable([cronTabs()], s.storage);
    for (const store of crons.all()) s.table.add(store, crons.subresources(store.definition, store.definition.resource));
    writeFileSync(kubeconfig, renderKubeconfig({ server: `https://127.0.0.1:${s.port}`, caPem: s.caPem, clientCertPem: s.admin.cert, clientKeyPem: s.admin.key, user: 'admin', cluster: 'test' }));
  });

  after(async () => {
    await s?.close();
    setFlavor('orch');
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl api-resources lists it with its short name, group version, kind and categories', async () => {
    const r = await kubectl('api-resources', `--api-group=${GROUP}`, '-o', 'wide');
    assert.equal(r.code, 0, r.stderr);
    const line = r.stdout.split('\n').find((l) => l.startsWith('crontabs '));
    assert.ok(line, r.stdout);
    assert.deepEqual(line.trim().split(/\s+/), ['crontabs', 'ct', `${GROUP}/v1`, 'true', 'CronTab', 'delete,deletecollection,get,list,patch,create,update,watch', 'all,schedules']);
  });

  it('kubectl get <category> and <short name> reach it', async () => {
    const created = await s!.request('POST', `/apis/${GROUP}/v1/namespaces/default/crontabs`, {
      body: { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name: 'nightly', namespace: 'default' }, spec: { cronSpec: '0 3 * * *' } },
    });
    assert.equal(created.status, 201, created.body);
    const r = await kubectl('get', 'schedules', '-n', 'default', '-o', 'name');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `crontab.${GROUP}/nightly`);
    const short = await kubectl('get', 'ct', '-n', 'default', '-o', 'name');
    assert.equal(short.stdout.trim(), `crontab.${GROUP}/nightly`, short.stderr);
  });

  it('kubectl explain reads the published schema (OpenAPI v3)', async () => {
    const top = await kubectl('explain', 'crontabs');
    assert.equal(top.code, 0, top.stderr);
    assert.match(top.stdout, /GROUP:\s+stable\.example\.com/);
    assert.match(top.stdout, /KIND:\s+CronTab/);
    assert.match(top.stdout, /metadata\s+<ObjectMeta>/);
    const spec = await kubectl('explain', 'crontabs.spec');
    assert.equal(spec.code, 0, spec.stderr);
    assert.match(spec.stdout, /The desired schedule\./);
    assert.match(spec.stdout, /cronSpec\s+<string>/);
    assert.match(spec.stdout, /replicas\s+<integer>/);
    const field = await kubectl('explain', 'crontabs.spec.cronSpec');
    assert.equal(field.code, 0, field.stderr);
    assert.match(field.stdout, /When to run, in cron format\./);
    const meta = await kubectl('explain', 'crontabs.metadata.name');
    assert.equal(meta.code, 0, meta.stderr);
    assert.match(meta.stdout, /FIELD:\s+name <string>/);
  });

  it('kubectl explain reads the OpenAPI v2 document when asked', async () => {
    const r = await kubectl('explain', 'crontabs.spec', '--output=plaintext-openapiv2');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /The desired schedule\./);
    assert.match(r.stdout, /cronSpec\s+<string>/);
  });
});
