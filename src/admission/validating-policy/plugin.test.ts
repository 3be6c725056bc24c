// The plugin over informers of a fake client: the actions of bindings (Audit annotations,
// Warn), audit annotations of policies, and stored policies that no longer compile.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { SharedInformerFactory } from '../../client/informer-factory.js';
import { FakeClient } from '../../testing/fake-client.js';
import { eventually } from '../../testing/wait.js';
import type { AdmissionAttributes } from '../types.js';
import { bindingsResource, policiesResource, ValidatingAdmissionPolicyPlugin } from './index.js';

const rules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: '*' }];
const matchConstraints = { resourceRules: rules, matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} };

function attrs(name: string, audit: Map<string, string>): AdmissionAttributes {
  return {
    operation: 'CREATE',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { a: '1' } },
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    namespace: '',
    name,
    user: { username: 'alice', groups: [] },
    dryRun: false,
    warnings: [],
    audit: { add: (k, v) => void (audit.has(k) ? undefined : audit.set(k, v)) },
  };
}

describe('ValidatingAdmissionPolicy plugin', () => {
  const client = new FakeClient();
  // The plugin's informers come from here, so that a test can wait until they hold a write.
  const informers = new SharedInformerFactory(client);
  const plugin = new ValidatingAdmissionPolicyPlugin({ client, informers, readyTimeoutMs: 2000 });
  informers.start();
  after(async () => {
    await plugin.stop();
    await informers.stop();
  });

  const policy = (name: string, spec: Record<string, unknown>): KubeObject => ({ metadata: { name }, spec: { failurePolicy: 'Fail', matchConstraints, ...spec } });
  const binding = (name: string, policyName: string, validationActions: string[]): KubeObject => ({ metadata: { name }, spec: { policyName, validationActions } });

  /** Writes `obj` and waits until the plugin's informer holds it (its handlers, which drop the plugin's caches, have run). */
  async function write(verb: 'create' | 'update', r: GroupVersionResource, obj: KubeObject): Promise<void> {
    const written = await client[verb](r, '', obj);
    const informer = informers.informerFor(r);
    await eventually(() => informer.get('', written.metadata?.name ?? '')?.metadata?.resourceVersion === written.metadata?.resourceVersion, `${r.resource} ${written.metadata?.name} in the informer`);
  }

  it('records an Audit failure and the policy\'s audit annotations, and warns', async () => {
    await write('create', policiesResource(), policy('audited', { validations: [{ expression: "object.metadata.name != 'bad'", message: 'bad name' }], auditAnnotations: [{ key: 'user', valueExpression: 'request.userInfo.username' }] }));
    await write('create', bindingsResource(), binding('audited-binding', 'audited', ['Audit', 'Warn']));
    const audit = new Map<string, string>();
    const a = attrs('bad', audit);
    await plugin.validate(a);
    assert.deepEqual(JSON.parse(audit.get('validation.policy.admission.orch.io/validation_failure') ?? 'null'), [
      { message: 'bad name', policy: 'audited', binding: 'audited-binding', expressionIndex: 0, validationActions: ['Audit', 'Warn'] },
    ]);
    assert.equal(audit.get('audited/user'), 'alice');
    assert.deepEqual(a.warnings, ["Validation failed for ValidatingAdmissionPolicy 'audited' with binding 'audited-binding': bad name"]);
    // A passing request records only the policy's own annotation.
    const ok = new Map<string, string>();
    await plugin.validate(attrs('good', ok));
    assert.deepEqual([...ok.keys()], ['audited/user']);
  });

  it('denies under Fail when a stored policy does not compile, admits under Ignore', async () => {
    await write('create', policiesResource(), policy('stale', { validations: [{ expression: 'object.nope(' }] }));
    await write('create', bindingsResource(), binding('stale', 'stale', ['Deny']));
    const err = await plugin.validate(attrs('x', new Map())).then(() => undefined, (e: unknown) => e);
    assert.ok(isApiError(err), String(err));
    assert.equal(err.code, 422);
    assert.match(err.message, /^configmaps "x" is forbidden: ValidatingAdmissionPolicy 'stale' denied request: failed to configure policy: spec.validations\[0\].expression: /);
    await write('update', policiesResource(), policy('stale', { failurePolicy: 'Ignore', validations: [{ expression: 'object.nope(' }] }));
    await plugin.validate(attrs('x', new Map()));
  });

  it('ignores bindings of policies that do not exist, and applies them once the policy comes', async () => {
    await write('create', bindingsResource(), binding('orphan', 'missing', ['Deny']));
    await plugin.validate(attrs('bad2', new Map()));
    // The same binding denies once its policy exists: it was in the plugin's view all along.
    await write('create', policiesResource(), policy('missing', { validations: [{ expression: "object.metadata.name != 'bad2'", message: 'not bad2' }] }));
    await assert.rejects(plugin.validate(attrs('bad2', new Map())), /ValidatingAdmissionPolicy 'missing' with binding 'orphan' denied request: not bad2/);
    await plugin.validate(attrs('good2', new Map()));
  });

  it('never evaluates policies for the policy kinds themselves', async () => {
    await write('create', policiesResource(), policy('deny-everything', { validations: [{ expression: 'false' }], matchConstraints: { ...matchConstraints, resourceRules: [{ ...rules[0], apiGroups: ['*'], resources: ['*'], apiVersions: ['*'], operations: ['*'] }] } }));
    await write('create', bindingsResource(), binding('deny-everything', 'deny-everything', ['Deny']));
    const a = attrs('p', new Map());
    a.resource = policiesResource();
    a.kind = { group: policiesResource().group, version: 'v1alpha1', kind: 'ValidatingAdmissionPolicy' };
    await plugin.validate(a);
    await assert.rejects(plugin.validate(attrs('cm', new Map())), /ValidatingAdmissionPolicy 'deny-everything' with binding 'deny-everything' denied request: failed expression: false/);
  });
});
