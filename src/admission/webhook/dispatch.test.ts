// The dispatchers with a stand-in caller: dry run and side effects, readiness, patches on
// deletes, failing open, and the metric's labels.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { ApiError } from '../../apimachinery/errors.js';
import { setFlavor } from '../../naming/index.js';
import type { AdmissionAttributes } from '../types.js';
import type { WebhookCaller } from './client.js';
import { webhooksOf } from './config.js';
import { MutatingAdmissionWebhook, ValidatingAdmissionWebhook, type DispatcherDeps } from './dispatch.js';
import { WebhookMatcher } from './matcher.js';
import { webhookMetrics } from './metrics.js';
import { CallingWebhookError } from './review.js';
import { serviceUnavailable } from '../../apimachinery/errors.js';
import { Auditor, AuditMetrics, parsePolicy, type AuditBackend } from '../../audit/index.js';

setFlavor('orch');

type Review = { apiVersion: string; request: { uid: string; dryRun: boolean } };

function setup(hook: Record<string, unknown>, answer: (review: Review) => unknown, ready = true) {
  const calls: Review[] = [];
  const caller: WebhookCaller = {
    async call(_w, review) {
      calls.push(review as Review);
      return answer(review as Review);
    },
    close() {},
  };
  const registry = new Registry();
  const base = {
    name: 'hook.example.com',
    clientConfig: { url: 'https://127.0.0.1:1/' },
    rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  };
  const deps = (type: 'mutating' | 'validating'): DispatcherDeps => ({
    webhooks: () => webhooksOf({ metadata: { name: 'cfg' }, webhooks: [{ ...base, ...hook }] }, type),
    ready: async () => ready,
    matcher: new WebhookMatcher({ namespaceLabels: async () => ({}) }),
    caller,
    metrics: webhookMetrics(registry),
    convert: (o) => o,
  });
  return { calls, registry, mutating: new MutatingAdmissionWebhook(deps('mutating')), validating: new ValidatingAdmissionWebhook(deps('validating')) };
}

function attrs(extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes & { notes: [string, string][]; addAuditAnnotation(k: string, v: string): void } {
  const notes: [string, string][] = [];
  return {
    operation: 'CREATE',
    object: { metadata: { name: 'c' } },
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    namespace: 'team',
    name: 'c',
    user: { username: 'u', groups: [] },
    dryRun: false,
    warnings: [],
    ...extra,
    notes,
    addAuditAnnotation: (k, v) => notes.push([k, v]),
  };
}

const allow = (extra: Record<string, unknown> = {}) => (review: Review) => ({
  apiVersion: review.apiVersion,
  kind: 'AdmissionReview',
  response: { uid: review.request.uid, allowed: true, ...extra },
});

async function counted(registry: Registry): Promise<Record<string, string | number>[]> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === 'apiserver_admission_webhook_rejection_count') as { values: { labels: Record<string, string | number> }[] } | undefined;
  return m?.values.map((v) => v.labels) ?? [];
}

test('dry run reaches webhooks without side effects, flagged; others refuse it with 400', async () => {
  const safe = setup({ sideEffects: 'NoneOnDryRun' }, allow());
  await safe.validating.validate(attrs({ dryRun: true }));
  assert.equal(safe.calls[0]?.request.dryRun, true);

  const unsafe = setup({ sideEffects: 'Some' }, allow());
  await assert.rejects(unsafe.validating.validate(attrs({ dryRun: true })), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, 400);
    assert.equal(e.message, 'admission webhook "hook.example.com" does not support dry run');
    return true;
  });
  assert.equal(unsafe.calls.length, 0);
  assert.deepEqual(await counted(unsafe.registry), [{ name: 'hook.example.com', type: 'validating', operation: 'CREATE', error_type: 'apiserver_internal_error', rejection_code: '0' }]);
  await unsafe.validating.validate(attrs());
  assert.equal(unsafe.calls.length, 1);
});

test('before the configurations are read, requests are refused with 403', async () => {
  const s = setup({}, allow(), false);
  await assert.rejects(s.mutating.admit(attrs()), (e: unknown) => e instanceof ApiError && e.code === 403 && e.message === 'configmaps "c" is forbidden: not yet ready to handle request');
});

test('a patch for a delete is an internal error; an empty patch is no change', async () => {
  const patch = (ops: unknown[]) => ({ patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });
  const s = setup({}, allow(patch([{ op: 'add', path: '/metadata/labels', value: {} }])));
  await assert.rejects(s.mutating.admit(attrs({ operation: 'DELETE', object: undefined, oldObject: undefined })), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, 500);
    assert.equal(e.message, 'Internal error occurred: admission webhook "hook.example.com" attempted to modify the object, which is not supported for this operation');
    return true;
  });
  const empty = setup({}, allow(patch([])));
  const a = attrs();
  await empty.mutating.admit(a);
  assert.deepEqual(a.notes, [['mutation.webhook.admission.orch.io/round_0_index_0', '{"configuration":"cfg","webhook":"hook.example.com","mutated":false}']]);
});

test('Ignore fails open with an audit annotation and the fail-open count; Fail counts the call error', async () => {
  const failing = () => {
    throw new CallingWebhookError('hook.example.com', 'failed to call webhook: boom', serviceUnavailable('error calling webhook'));
  };
  const ignore = setup({ failurePolicy: 'Ignore' }, failing);
  const a = attrs();
  await ignore.validating.validate(a);
  assert.deepEqual(a.notes, [['failed-open.validating.webhook.admission.orch.io/round_0_index_0', 'hook.example.com']]);
  assert.deepEqual(await counted(ignore.registry), []);

  const fail = setup({}, failing);
  await assert.rejects(fail.mutating.admit(attrs({ operation: 'UPDATE' })), (e: unknown) => e instanceof ApiError && e.code === 500 && e.message === 'Internal error occurred: failed calling webhook "hook.example.com": failed to call webhook: boom');
  assert.deepEqual(await counted(fail.registry), [{ name: 'hook.example.com', type: 'admit', operation: 'UPDATE', error_type: 'calling_webhook_error', rejection_code: '503' }]);
});

test('rejection codes above 600 are counted as 600', async () => {
  const s = setup({}, (review) => ({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: false, status: { code: 777 } } }));
  await assert.rejects(s.validating.validate(attrs()), (e: unknown) => e instanceof ApiError && e.code === 777);
  assert.equal((await counted(s.registry))[0]?.rejection_code, '600');
});

test("the request's audit event gets the mutation annotation at Metadata and the patch from Request level", async () => {
  const patch = [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }];
  const s = setup({}, allow({ patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') }));
  const annotationsAt = async (level: string): Promise<Record<string, string>> => {
    let seen: Record<string, string> = {};
    const capture: AuditBackend = {
      name: 'capture',
      processEvents: (events) => {
        seen = Object.fromEntries(events[0]!.event.annotations ?? []);
        return true;
      },
      shutdown: async () => {},
    };
    const policy = parsePolicy(`{"apiVersion":"audit.orch.io/v1","kind":"Policy","rules":[{"level":"${level}"}]}`);
    const audit = new Auditor(policy, capture, new AuditMetrics(), false).begin(
      { user: { username: 'u', groups: [] }, verb: 'create', isResourceRequest: true, path: '/', apiGroup: '', apiVersion: 'v1', resource: 'configmaps', subresource: '', namespace: 'team', name: 'c' },
      { auditID: 'x', requestURI: '/', userAgent: undefined, sourceIPs: [], receivedMicros: 0 },
    )!;
    await s.mutating.admit(attrs({ audit }));
    audit.process('ResponseComplete');
    return seen;
  };
  const mutation = '{"configuration":"cfg","webhook":"hook.example.com","mutated":true}';
  assert.deepEqual(await annotationsAt('Metadata'), { 'mutation.webhook.admission.orch.io/round_0_index_0': mutation });
  const req = await annotationsAt('Request');
  assert.equal(req['mutation.webhook.admission.orch.io/round_0_index_0'], mutation);
  assert.deepEqual(JSON.parse(req['patch.webhook.admission.orch.io/round_0_index_0']!), { configuration: 'cfg', webhook: 'hook.example.com', patch, patchType: 'JSONPatch' });
});
