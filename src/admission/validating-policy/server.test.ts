// ValidatingAdmissionPolicy through the whole server: the gate and the API switched on,
// policies and bindings written over HTTPS, requests denied, warned and admitted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAuthTestServer, type AuthTestServer } from '../../testing/server.js';
import { eventually } from '../../testing/wait.js';

const G = 'admissionregistration.orch.io';
const POLICIES = `/apis/${G}/v1alpha1/validatingadmissionpolicies`;
const BINDINGS = `/apis/${G}/v1alpha1/validatingadmissionpolicybindings`;


describe('ValidatingAdmissionPolicy, gate and API on', () => {
  let s: AuthTestServer;
  before(async () => {
    s = await startAuthTestServer(['--feature-gates=ValidatingAdmissionPolicy=true', `--runtime-config=${G}/v1alpha1=true`]);
    assert.equal((await s.request('POST', '/api/v1/namespaces', s.admin, { metadata: { name: 'vap' } })).status, 201);
  });
  after(async () => s?.stop());

  const policy = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
    apiVersion: `${G}/v1alpha1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
      ...spec,
    },
  });
  const binding = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
    apiVersion: `${G}/v1alpha1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec,
  });
  const cm = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): Record<string, unknown> => ({
    metadata: { name, labels },
    data,
  });

  it('refuses a policy whose expression does not compile, with the CEL error at the field', async () => {
    const res = await s.request('POST', POLICIES, s.admin, policy('broken', { validations: [{ expression: 'object.data.size( <' }, { expression: 'object.data' }] }));
    assert.equal(res.status, 422, res.text);
    const causes = (res.json.details as { causes: { field: string; message: string }[] }).causes;
    assert.equal(causes[0].field, 'spec.validations[0].expression');
    assert.match(causes[0].message, /^Invalid value: "object.data.size\( <": compilation failed: ERROR: <input>:1:/);
    assert.equal(causes[1].field, 'spec.validations[1].expression');
    assert.equal(causes[1].message, 'Invalid value: "object.data": must evaluate to bool');
    // `params` exists only with a paramKind.
    const noParams = await s.request('POST', POLICIES, s.admin, policy('noparams', { validations: [{ expression: 'params.x == 1' }] }));
    assert.equal(noParams.status, 422);
    assert.match(noParams.text, /undeclared reference to 'params'/);
  });

  it('defaults a policy as v1alpha1 does', async () => {
    const res = await s.request('POST', POLICIES, s.admin, policy('defaults', { validations: [{ expression: 'true' }] }));
    assert.equal(res.status, 201, res.text);
    const spec = res.json.spec as Record<string, Record<string, unknown>>;
    assert.equal(spec.failurePolicy, 'Fail');
    assert.equal(spec.matchConstraints.matchPolicy, 'Equivalent');
    assert.deepEqual(spec.matchConstraints.namespaceSelector, {});
    assert.equal((spec.matchConstraints.resourceRules as Record<string, unknown>[])[0].scope, '*');
  });

  it('refuses a binding without actions or with Deny and Warn', async () => {
    const none = await s.request('POST', BINDINGS, s.admin, binding('b0', { policyName: 'x' }));
    assert.equal(none.status, 422);
    assert.match(none.text, /spec.validationActions: Required value: at least one validation action is required/);
    const both = await s.request('POST', BINDINGS, s.admin, binding('b1', { policyName: 'x', validationActions: ['Deny', 'Warn'] }));
    assert.equal(both.status, 422);
    assert.match(both.text, /must not contain both Deny and Warn/);
  });

  it('denies a matching create with kube\'s message, reason and code', async () => {
    assert.equal(
      (await s.request('POST', POLICIES, s.admin, policy('max-keys', { validations: [{ expression: '!has(object.data) || size(object.data) <= 2', message: 'too many keys', reason: 'Forbidden' }] }))).status,
      201,
    );
    assert.equal((await s.request('POST', BINDINGS, s.admin, binding('max-keys-binding', { policyName: 'max-keys', validationActions: ['Deny'] }))).status, 201);
    const res = await eventually(async () => {
      const r = await s.request('POST', '/api/v1/namespaces/vap/configmaps', s.admin, cm('big', { a: '1', b: '2', c: '3' }));
      if (r.status === 201) await s.request('DELETE', '/api/v1/namespaces/vap/configmaps/big', s.admin);
      return r.status === 201 ? undefined : r;
    }, 'the policy to deny');
    assert.equal(res.status, 403, res.text);
    assert.equal(res.json.reason, 'Forbidden');
    assert.equal(res.json.message, `configmaps "big" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-binding' denied request: too many keys`);
    assert.equal((await s.request('POST', '/api/v1/namespaces/vap/configmaps', s.admin, cm('small', { a: '1' }))).status, 201);
  });

  it('answers 422 Invalid when the validation names no reason, with the expression as the message', async () => {
    await s.request('POST', POLICIES, s.admin, policy('no-bad-label', { validations: [{ expression: "!has(object.metadata.labels) || !('bad' in object.metadata.labels)" }] }));
    await s.request('POST', BINDINGS, s.admin, binding('no-bad-label', { policyName: 'no-bad-label', validationActions: ['Deny'] }));
    const res = await eventually(async () => {
      const r = await s.request('POST', '/api/v1/namespaces/vap/configmaps', s.admin, cm('labelled', {}, { bad: 'x' }));
      if (r.status === 201) await s.request('DELETE', '/api/v1/namespaces/vap/configmaps/labelled', s.admin);
      return r.status === 201 ? undefined : r;
    }, 'the policy to deny');
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.reason, 'Invalid');
    assert.match(String(res.json.message), /denied request: failed expression: !has\(object.metadata.labels\)/);
  });

  it('warns instead of denying with the Warn action', async () => {
    await s.request('POST', POLICIES, s.admin, policy('warn-name', { validations: [{ expression: "object.metadata.name != 'warned'", message: 'that name' }] }));
    await s.request('POST', BINDINGS, s.admin, binding('warn-name', { policyName: 'warn-name', validationActions: ['Warn', 'Audit'] }));
    const res = await eventually(async () => {
      const r = await s.request('POST', '/api/v1/namespaces/vap/configmaps', s.admin, cm('warned'));
      if (r.headers.warning === undefined) {
        await s.request('DELETE', '/api/v1/namespaces/vap/configmaps/warned', s.admin);
        return undefined;
      }
      return r;
    }, 'the binding to warn');
    assert.equal(res.status, 201);
    assert.match(String(res.headers.warning), /Validation failed for ValidatingAdmissionPolicy 'warn-name' with binding 'warn-name': that name/);
  });

  it('reads limits from the binding\'s param; failurePolicy Ignore admits when the param is missing', async () => {
    const withParams = (name: string, failurePolicy: string): Record<string, unknown> =>
      policy(name, {
        failurePolicy,
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }] },
        validations: [{ expression: "!has(object.data) || size(object.data) <= int(params.data.max)", messageExpression: "'at most ' + params.data.max + ' keys'" }],
      });
    assert.equal((await s.request('POST', '/api/v1/namespaces/vap/configmaps', s.admin, cm('limits', { max: '1' }))).status, 201);
    assert.equal((await s.request('POST', POLICIES, s.admin, withParams('secret-keys', 'Fail'))).status, 201);
    assert.equal((await s.request('POST', BINDINGS, s.admin, binding('secret-keys', { policyName: 'secret-keys', paramRef: { name: 'limits', namespace: 'vap' }, validationActions: ['Deny'] }))).status, 201);
    const secret = (name: string, keys: number): Record<string, unknown> => ({ metadata: { name }, data: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 'eA=='])) });
    const denied = await eventually(async () => {
      const r = await s.request('POST', '/api/v1/namespaces/vap/secrets', s.admin, secret('two', 2));
      if (r.status === 201) await s.request('DELETE', '/api/v1/namespaces/vap/secrets/two', s.admin);
      return r.status === 201 ? undefined : r;
    }, 'the param policy to deny');
    assert.equal(denied.status, 422, denied.text);
    assert.match(String(denied.json.message), /ValidatingAdmissionPolicy 'secret-keys' with binding 'secret-keys' denied request: at most 1 keys$/);
    assert.equal((await s.request('POST', '/api/v1/namespaces/vap/secrets', s.admin, secret('one', 1))).status, 201);

    // A binding to a param that does not exist: Fail denies, Ignore admits.
    await s.request('DELETE', `${BINDINGS}/secret-keys`, s.admin);
    await s.request('POST', BINDINGS, s.admin, binding('secret-keys-missing', { policyName: 'secret-keys', paramRef: { name: 'nope', namespace: 'vap' }, validationActions: ['Deny'] }));
    const failed = await eventually(async () => {
      const r = await s.request('POST', '/api/v1/namespaces/vap/secrets', s.admin, secret('zero', 0));
      if (r.status === 201) await s.request('DELETE', '/api/v1/namespaces/vap/secrets/zero', s.admin);
      return r.status === 201 ? undefined : r;
    }, 'the missing param to deny');
    assert.equal(failed.status, 422, failed.text);
    assert.match(String(failed.json.message), /denied request: failed to configure binding: configmaps "nope" not found$/);

    const ignoring = withParams('secret-keys', 'Ignore');
    const current = await s.request('GET', `${POLICIES}/secret-keys`, s.admin);
    (ignoring.metadata as Record<string, unknown>).resourceVersion = (current.json.metadata as Record<string, unknown>).resourceVersion;
    assert.equal((await s.request('PUT', `${POLICIES}/secret-keys`, s.admin, ignoring)).status, 200);
    const admitted = await eventually(async () => {
      const r = await s.request('POST', '/api/v1/namespaces/vap/secrets', s.admin, secret('ignored', 3));
      return r.status === 201 ? r : undefined;
    }, 'the Ignore policy to admit');
    assert.equal(admitted.status, 201);
  });

  it('does not subject the policy kinds themselves to policies', async () => {
    assert.equal((await s.request('POST', '/api/v1/namespaces', s.admin, { metadata: { name: 'locked', labels: { locked: 'true' } } })).status, 201);
    const created = await s.request('POST', POLICIES, s.admin, {
      ...policy('deny-all', { validations: [{ expression: 'false' }] }),
      spec: { matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] }, validations: [{ expression: 'false' }] },
    });
    assert.equal(created.status, 201, created.text);
    const bound = await s.request('POST', BINDINGS, s.admin, binding('deny-all', { policyName: 'deny-all', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { locked: 'true' } } } }));
    assert.equal(bound.status, 201, bound.text);
    // In force: a write in the locked namespace is denied (cluster-scoped objects match a namespaceSelector too).
    const denied = await eventually(async () => {
      const r = await s.request('POST', '/api/v1/namespaces/locked/configmaps', s.admin, cm('held'));
      if (r.status === 201) await s.request('DELETE', '/api/v1/namespaces/locked/configmaps/held', s.admin);
      return r.status === 201 ? undefined : r;
    }, 'the deny-all binding to deny');
    assert.match(String(denied.json.message), /ValidatingAdmissionPolicy 'deny-all' with binding 'deny-all' denied request: failed expression: false/);
    // Only namespaces labelled locked are affected, and the binding stays deletable.
    assert.equal((await s.request('POST', '/api/v1/namespaces/vap/configmaps', s.admin, cm('free'))).status, 201);
    assert.equal((await s.request('DELETE', `${BINDINGS}/deny-all`, s.admin)).status, 200);
    assert.equal((await s.request('DELETE', `${POLICIES}/deny-all`, s.admin)).status, 200);
  });
});

describe('ValidatingAdmissionPolicy, start-up', () => {
  it('refuses the gate without the API', async () => {
    await assert.rejects(startAuthTestServer(['--feature-gates=ValidatingAdmissionPolicy=true']), /--runtime-config=admissionregistration.orch.io\/v1alpha1=true/);
  });

  it('serves the API off by default', async () => {
    const s = await startAuthTestServer([]);
    try {
      assert.equal((await s.request('GET', POLICIES, s.admin)).status, 404);
    } finally {
      await s.stop();
    }
  });
});
