import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../apimachinery/errors.js';
import { parseJsonWithDuplicates } from '../codec/strict-json.js';
import { setFlavor } from '../naming/index.js';
import { checkObject, type FieldValidation } from './validate.js';

const deploymentBody = `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "dupename", "name": "web", "labels": {"app": "nginx"}, "unknownMeta": "metaVal"},
  "spec": {
    "unknown1": "val1",
    "unknownDupe": "valDupe",
    "unknownDupe": "valDupe2",
    "paused": true,
    "paused": false,
    "selector": {"matchLabels": {"app": "nginx"}},
    "template": {
      "metadata": {"labels": {"app": "nginx"}},
      "spec": {"containers": [{"name": "nginx", "image": "nginx:latest", "unknownNested": "val1",
        "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}
    }
  }
}`;

const expectedFindings = [
  'duplicate field "metadata.name"',
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
  'duplicate field "spec.paused"',
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
];

const deployment = { group: 'apps', version: 'v1', kind: 'Deployment' };

function decode(text: string): { value: Record<string, unknown>; duplicates: string[] } {
  const { value, duplicates } = parseJsonWithDuplicates(text);
  return { value: value as Record<string, unknown>, duplicates };
}

function check(level: FieldValidation, text = deploymentBody) {
  const { value, duplicates } = decode(text);
  const result = checkObject(value, deployment, { fieldValidation: level, duplicateFields: duplicates });
  return { value, result };
}

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  assert.fail('expected an ApiError');
}

test('Strict rejects with every unknown and duplicate field in document order', () => {
  const err = apiError(() => check('Strict'));
  assert.equal(err.code, 400);
  assert.equal(err.reason, 'BadRequest');
  assert.equal(
    err.message,
    `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ${expectedFindings.join(', ')}`,
  );
});

test('Warn drops unknown fields and reports one warning per field', () => {
  const { value, result } = check('Warn');
  assert.deepEqual(result.warnings, expectedFindings);
  const spec = value.spec as Record<string, unknown>;
  assert.equal('unknown1' in spec, false);
  assert.equal('unknownMeta' in (value.metadata as Record<string, unknown>), false);
  // The last duplicate wins, and `paused: false` is an omitempty zero value Go leaves out.
  assert.equal('paused' in spec, false);
  const container = ((spec.template as { spec: { containers: Record<string, unknown>[] } }).spec.containers)[0];
  assert.deepEqual(Object.keys(container), ['name', 'image', 'imagePullPolicy']);
  assert.deepEqual(result.errors, []);
});

test('Ignore drops unknown fields silently', () => {
  const { value, result } = check('Ignore');
  assert.deepEqual(result.warnings, []);
  assert.equal('unknown1' in (value.spec as Record<string, unknown>), false);
});

test('served group names of the orch flavor find the kind', () => {
  setFlavor('orch');
  const { value } = decode('{"apiVersion":"rbac.authorization.orch.io/v1","kind":"ClusterRole","metadata":{"name":"x"},"rules":[{"verbs":["get"],"bogus":1}]}');
  const result = checkObject(value, { group: 'rbac.authorization.orch.io', version: 'v1', kind: 'ClusterRole' }, { fieldValidation: 'Warn' });
  assert.deepEqual(result.warnings, ['unknown field "rules[0].bogus"']);
});

test('wrong types are 400 at every level, with the field path', () => {
  for (const level of ['Ignore', 'Warn', 'Strict'] as const) {
    const err = apiError(() =>
      checkObject(
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 'http' }] }] } },
        { group: '', version: 'v1', kind: 'Pod' },
        { fieldValidation: level },
      ),
    );
    assert.equal(err.code, 400);
    assert.equal(
      err.message,
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    );
  }
  const big = apiError(() =>
    checkObject({ spec: { containers: [{ name: 'c', ports: [{ containerPort: 3000000000 }] }] } }, { group: '', version: 'v1', kind: 'Pod' }, { fieldValidation: 'Ignore' }),
  );
  assert.match(big.message, /cannot unmarshal number 3000000000 into Go struct field ContainerPort\.spec\.containers\.ports\.containerPort of type int32/);
  const list = apiError(() => checkObject({ spec: { containers: {} } }, { group: '', version: 'v1', kind: 'Pod' }, { fieldValidation: 'Warn' }));
  assert.match(list.message, /cannot unmarshal object into Go struct field PodSpec\.spec\.containers of type \[\]v1\.Container$/);
});

test('typed values: quantities and times are normalized, bad ones rejected', () => {
  const pod = {
    metadata: { name: 'p', creationTimestamp: '2024-01-01T01:00:00+01:00' },
    spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1000m', memory: 1073741824 }, requests: { memory: '1024Mi' } } }] },
  };
  checkObject(pod, { group: '', version: 'v1', kind: 'Pod' }, { fieldValidation: 'Strict' });
  assert.deepEqual(pod.spec.containers[0].resources, { limits: { cpu: '1', memory: '1073741824' }, requests: { memory: '1Gi' } });
  assert.equal(pod.metadata.creationTimestamp, '2024-01-01T00:00:00Z');
  const err = apiError(() =>
    checkObject({ spec: { containers: [{ name: 'c', resources: { limits: { cpu: 'lots' } } }] } }, { group: '', version: 'v1', kind: 'Pod' }, { fieldValidation: 'Ignore' }),
  );
  assert.equal(
    err.message,
    `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
  );
});

test('int-or-string, base64 bytes and enums', () => {
  const svc = { group: '', version: 'v1', kind: 'Service' };
  assert.doesNotThrow(() => checkObject({ spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8081 }] } }, svc, { fieldValidation: 'Strict' }));
  const e1 = apiError(() => checkObject({ spec: { ports: [{ port: 80, targetPort: true }] } }, svc, { fieldValidation: 'Strict' }));
  assert.match(e1.message, /cannot unmarshal bool into Go struct field ServicePort\.spec\.ports\.targetPort of type int32$/);

  const secret = { group: '', version: 'v1', kind: 'Secret' };
  assert.doesNotThrow(() => checkObject({ data: { a: 'YWJj' } }, secret, { fieldValidation: 'Strict' }));
  const e2 = apiError(() => checkObject({ data: { a: 'not base64!' } }, secret, { fieldValidation: 'Strict' }));
  assert.equal(e2.message, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3');

  const r = checkObject({ spec: { containers: [{ name: 'c', imagePullPolicy: 'Sometimes' }] } }, { group: '', version: 'v1', kind: 'Pod' }, { fieldValidation: 'Strict' });
  assert.deepEqual(r.errors.map((e) => [e.type, e.field]), [['FieldValueNotSupported', 'spec.containers[0].imagePullPolicy']]);
  assert.match(r.errors[0].detail, /^Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"$/);
});

test('missing required fields are returned as field errors with their paths', () => {
  const r = checkObject({ metadata: { name: 'p' }, spec: { containers: [{ image: 'x' }] } }, { group: '', version: 'v1', kind: 'Pod' }, { fieldValidation: 'Strict' });
  assert.deepEqual(r.errors, [{ type: 'FieldValueRequired', field: 'spec.containers[0].name', detail: 'Required value' }]);
  const none = checkObject({ metadata: { name: 'p' }, spec: { containers: [{ image: 'x' }] } }, { group: '', version: 'v1', kind: 'Pod' }, { fieldValidation: 'Strict', checkRequired: false });
  assert.deepEqual(none.errors, []);
});

test('patches report their duplicates first and fail as 422 on the patch', () => {
  const patched = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' }, bogus: true };
  const patchText = JSON.stringify(patched);
  const err = apiError(() =>
    checkObject(patched, { group: '', version: 'v1', kind: 'ConfigMap' }, { fieldValidation: 'Strict', duplicateFields: ['data.a'], patchText }),
  );
  assert.equal(err.code, 422);
  assert.equal(err.message, ` "" is invalid: patch: Invalid value: ${JSON.stringify(patchText)}: strict decoding error: duplicate field "data.a", unknown field "bogus"`);
});

test('duplicates inside maps are reported; kinds outside the catalog only check duplicates', () => {
  const { value, duplicates } = decode('{"kind":"ConfigMap","data":{"a":"1","a":"2"}}');
  const r = checkObject(value, { group: '', version: 'v1', kind: 'ConfigMap' }, { fieldValidation: 'Warn', duplicateFields: duplicates });
  assert.deepEqual(r.warnings, ['duplicate field "data.a"']);
  const other = checkObject({ spec: { anything: 1 } }, { group: 'example.com', version: 'v1', kind: 'Widget' }, { fieldValidation: 'Warn', duplicateFields: ['spec.x'] });
  assert.deepEqual(other.warnings, ['duplicate field "spec.x"']);
});

test('omitempty zero values are removed as Go would encode them; pointers and non-omitempty fields stay', () => {
  const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{},"annotations":{},"finalizers":[],"generateName":"","namespace":null},"data":{},"immutable":false}`;
  const { value } = decode(body);
  checkObject(value, { group: '', version: 'v1', kind: 'ConfigMap' }, { fieldValidation: 'Strict' });
  // `immutable` is a pointer: false is a value there, not an absence.
  assert.deepEqual(value, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, immutable: false });
  const pod = decode(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[],"nodeName":"","hostNetwork":false}}`).value;
  checkObject(pod, { group: '', version: 'v1', kind: 'Pod' }, { fieldValidation: 'Strict' });
  // `containers` has no omitempty: an empty list is still written.
  assert.deepEqual(pod.spec, { containers: [] });
});
