// Built-in kinds through the real server over HTTPS: int64 values beyond 2^53 in binary
// bodies, and an apply body of another kind than the resource it is sent to.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../apimachinery/types.js';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';
import { parseJsonText, stringifyJson } from './json.js';
import { decodeObject, encodeObject } from './protobuf/index.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const BEYOND = 9007199254740993n;
const INT64_MIN = -9223372036854775808n;

let s: AuthTestServer;
before(async () => {
  s = await startAuthTestServer(['--compat=kubernetes']);
});
after(async () => {
  await s?.stop();
});

function send(method: string, path: string, headers: Record<string, string>, body?: Uint8Array | string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, s.url), { method, headers, ca: s.serverCA, cert: s.admin.cert?.certPem, key: s.admin.cert?.keyPem, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function pod(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      containers: [{ name: 'c', image: 'nginx' }],
      tolerations: [
        { key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: BEYOND },
        { key: 'b', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: INT64_MIN },
      ],
    },
  } as unknown as KubeObject;
}

// The first two tolerations are ours (admission adds its defaults after them).
const seconds = (obj: KubeObject): unknown[] => (obj.spec as { tolerations: { tolerationSeconds: unknown }[] }).tolerations.slice(0, 2).map((t) => t.tolerationSeconds);

describe('int64 over HTTPS with built-in kinds', () => {
  it('round-trips through a binary create and binary and JSON gets', async () => {
    const created = await send('POST', '/api/v1/namespaces/default/pods', { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, encodeObject(pod('pb')));
    assert.equal(created.status, 201, created.body.toString('latin1'));
    assert.deepEqual(seconds(decodeObject(created.body)), [BEYOND, INT64_MIN]);
    const asJson = await send('GET', '/api/v1/namespaces/default/pods/pb', { Accept: 'application/json' });
    assert.match(asJson.body.toString(), /"tolerationSeconds":9007199254740993\b/);
    assert.deepEqual(seconds(parseJsonText(asJson.body.toString()) as KubeObject), [BEYOND, INT64_MIN]);
    const asBinary = await send('GET', '/api/v1/namespaces/default/pods/pb', { Accept: PROTOBUF });
    assert.deepEqual(seconds(decodeObject(asBinary.body)), [BEYOND, INT64_MIN]);
  });

  it('round-trips through JSON and YAML creates', async () => {
    const json = await send('POST', '/api/v1/namespaces/default/pods', { 'Content-Type': 'application/json', Accept: 'application/json' }, stringifyJson(pod('js')));
    assert.equal(json.status, 201, json.body.toString());
    const yaml = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ym\nspec:\n  containers: [{name: c, image: nginx}]\n  tolerations:\n  - {key: a, operator: Exists, effect: NoExecute, tolerationSeconds: 9007199254740993}\n  - {key: b, operator: Exists, effect: NoExecute, tolerationSeconds: -9223372036854775808}\n`;
    const created = await send('POST', '/api/v1/namespaces/default/pods', { 'Content-Type': 'application/yaml', Accept: 'application/json' }, yaml);
    assert.equal(created.status, 201, created.body.toString());
    for (const name of ['js', 'ym']) {
      const got = await send('GET', `/api/v1/namespaces/default/pods/${name}`, { Accept: 'application/json' });
      assert.deepEqual(seconds(parseJsonText(got.body.toString()) as KubeObject), [BEYOND, INT64_MIN]);
    }
  });
});

describe('apply of another kind', () => {
  it('a StatefulSet applied to the deployments is refused with 400 and not stored', async () => {
    const body = 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: nginx}]\n';
    const r = await send('PATCH', '/apis/apps/v1/namespaces/default/deployments/web?fieldManager=a', { 'Content-Type': 'application/apply-patch+yaml', Accept: 'application/json' }, body);
    assert.equal(r.status, 400, r.body.toString());
    assert.equal((JSON.parse(r.body.toString()) as { message: string }).message, 'invalid object type: apps/v1, Kind=StatefulSet');
    assert.equal((await send('GET', '/apis/apps/v1/namespaces/default/deployments/web', { Accept: 'application/json' })).status, 404);
    const right = await send('PATCH', '/apis/apps/v1/namespaces/default/deployments/web?fieldManager=a', { 'Content-Type': 'application/apply-patch+yaml', Accept: 'application/json' }, body.replace('StatefulSet', 'Deployment'));
    assert.equal(right.status, 201, right.body.toString());
  });
});

describe('int64 fields past validation and defaulting', () => {
  const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const podText = (name: string, spec: string): string =>
    `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"${name}"},"spec":{"containers":[{"name":"c","image":"nginx"}]${spec}}}`;
  const message = (r: { body: Buffer }): string => (JSON.parse(r.body.toString()) as { message: string }).message;

  it('stores terminationGracePeriodSeconds beyond 2^53 and answers it byte for byte, in JSON and in protobuf', async () => {
    const created = await send('POST', '/api/v1/namespaces/default/pods', JSON_HEADERS, podText('grace', ',"terminationGracePeriodSeconds":9007199254740993'));
    assert.equal(created.status, 201, created.body.toString());
    assert.match(created.body.toString(), /"terminationGracePeriodSeconds":9007199254740993[,}]/);
    const got = await send('GET', '/api/v1/namespaces/default/pods/grace', { Accept: 'application/json' });
    assert.match(got.body.toString(), /"terminationGracePeriodSeconds":9007199254740993[,}]/);
    const binary = await send('GET', '/api/v1/namespaces/default/pods/grace', { Accept: PROTOBUF });
    assert.equal((decodeObject(binary.body).spec as { terminationGracePeriodSeconds: unknown }).terminationGracePeriodSeconds, BEYOND);

    const pb = pod('grace-pb');
    (pb.spec as Record<string, unknown>).terminationGracePeriodSeconds = BEYOND + 2n;
    const viaBinary = await send('POST', '/api/v1/namespaces/default/pods', { 'Content-Type': PROTOBUF, Accept: 'application/json' }, encodeObject(pb));
    assert.equal(viaBinary.status, 201, viaBinary.body.toString());
    assert.match(viaBinary.body.toString(), /"terminationGracePeriodSeconds":9007199254740995[,}]/);
  });

  it('deletes a bound pod whose grace period is beyond 2^53 (the wait is capped, the timestamp valid)', async () => {
    const created = await send('POST', '/api/v1/namespaces/default/pods', JSON_HEADERS, podText('long-grace', ',"nodeName":"node-1","terminationGracePeriodSeconds":9007199254740993'));
    assert.equal(created.status, 201, created.body.toString());
    const deleted = await send('DELETE', '/api/v1/namespaces/default/pods/long-grace', { Accept: 'application/json' });
    assert.equal(deleted.status, 200, deleted.body.toString());
    const meta = (JSON.parse(deleted.body.toString()) as KubeObject).metadata;
    assert.equal(meta?.deletionGracePeriodSeconds, 2 ** 31 - 1);
    assert.ok(!Number.isNaN(Date.parse(meta?.deletionTimestamp ?? '')));
  });

  it('checks int64 ranges as Kubernetes does, with the exact value in the message', async () => {
    const cases: [string, string, number, string][] = [
      ['neg', ',"terminationGracePeriodSeconds":-9007199254740993', 422, 'Pod "neg" is invalid: spec.terminationGracePeriodSeconds: Invalid value: -9007199254740993: must be greater than or equal to 0'],
      ['ads', ',"activeDeadlineSeconds":9007199254740993', 422, 'Pod "ads" is invalid: spec.activeDeadlineSeconds: Invalid value: 9007199254740993: must be between 1 and 2147483647, inclusive'],
      ['ads32', ',"activeDeadlineSeconds":2147483648', 422, 'Pod "ads32" is invalid: spec.activeDeadlineSeconds: Invalid value: 2147483648: must be between 1 and 2147483647, inclusive'],
      ['uid', ',"securityContext":{"runAsUser":9007199254740993}', 422, 'Pod "uid" is invalid: spec.securityContext.runAsUser: Invalid value: 9007199254740993: must be between 0 and 2147483647, inclusive'],
      ['gid', ',"securityContext":{"supplementalGroups":[1,-9007199254740993]}', 422, 'Pod "gid" is invalid: spec.securityContext.supplementalGroups[1]: Invalid value: -9007199254740993: must be between 0 and 2147483647, inclusive'],
      [
        'cuid',
        ',"initContainers":[{"name":"i","image":"busybox","securityContext":{"runAsGroup":4294967296}}]',
        422,
        'Pod "cuid" is invalid: spec.initContainers[0].securityContext.runAsGroup: Invalid value: 4294967296: must be between 0 and 2147483647, inclusive',
      ],
      [
        'over',
        ',"terminationGracePeriodSeconds":9223372036854775808',
        400,
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number 9223372036854775808 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64',
      ],
    ];
    for (const [name, spec, code, text] of cases) {
      const r = await send('POST', '/api/v1/namespaces/default/pods', JSON_HEADERS, podText(name, spec));
      assert.equal(r.status, code, r.body.toString());
      assert.equal(message(r), text);
    }
  });

  it('accepts int64s beyond 2^53 in Jobs, CronJobs and ControllerRevisions, and prints a revision exactly in a Table', async () => {
    const template = '"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}';
    const job = await send('POST', '/apis/batch/v1/namespaces/default/jobs', JSON_HEADERS, `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"long"},"spec":{"activeDeadlineSeconds":9007199254740993,${template}}}`);
    assert.equal(job.status, 201, job.body.toString());
    assert.match(job.body.toString(), /"activeDeadlineSeconds":9007199254740993[,}]/);
    const cron = await send(
      'POST',
      '/apis/batch/v1/namespaces/default/cronjobs',
      JSON_HEADERS,
      `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"late"},"spec":{"schedule":"* * * * *","startingDeadlineSeconds":9007199254740993,"jobTemplate":{"spec":{${template}}}}}`,
    );
    assert.equal(cron.status, 201, cron.body.toString());
    assert.match(cron.body.toString(), /"startingDeadlineSeconds":9007199254740993[,}]/);
    const negative = await send('POST', '/apis/apps/v1/namespaces/default/controllerrevisions', JSON_HEADERS, '{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"neg"},"revision":-9007199254740993}');
    assert.equal(negative.status, 422, negative.body.toString());
    assert.equal(message(negative), 'ControllerRevision.apps "neg" is invalid: revision: Invalid value: -9007199254740993: must be greater than or equal to 0');
    const rev = await send('POST', '/apis/apps/v1/namespaces/default/controllerrevisions', JSON_HEADERS, '{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"big"},"revision":9007199254740993}');
    assert.equal(rev.status, 201, rev.body.toString());
    const table = await send('GET', '/apis/apps/v1/namespaces/default/controllerrevisions/big', { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.match(table.body.toString(), /"cells":\["big","<none>",9007199254740993,/);
  });

  it('refuses a TokenRequest expiration beyond 2^53 as too long', async () => {
    assert.equal((await send('POST', '/api/v1/namespaces/default/serviceaccounts', JSON_HEADERS, '{"metadata":{"name":"robot"}}')).status, 201);
    const r = await send('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', JSON_HEADERS, '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":9007199254740993}}');
    assert.equal(r.status, 422, r.body.toString());
    assert.match(message(r), /spec\.expirationSeconds: Invalid value: 9007199254740993: may not specify a duration larger than 2\^32 seconds/);
  });
});
