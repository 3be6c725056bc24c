import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlavor } from '../../naming/index.js';
import { buildAdmissionReview, CallingWebhookError, rejectionError, reviewVersionFor, verifyAdmissionResponse } from './review.js';

setFlavor('orch');

const input = {
  uid: 'u-1',
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  subresource: '',
  requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
  requestResource: { group: '', version: 'v1', resource: 'configmaps' },
  requestSubresource: '',
  name: 'c',
  namespace: 'team',
  operation: 'DELETE' as const,
  user: { username: 'alice', groups: ['devs'] },
  oldObject: { metadata: { name: 'c' } },
  options: { kind: 'DeleteOptions', apiVersion: 'meta.orch.io/v1' },
  dryRun: false,
};

test('the request names the review version and writes absent objects as null', () => {
  const review = buildAdmissionReview('v1beta1', input);
  assert.equal(review.apiVersion, 'admission.orch.io/v1beta1');
  assert.equal(review.kind, 'AdmissionReview');
  const r = review.request as Record<string, unknown>;
  assert.deepEqual(Object.keys(r), ['uid', 'kind', 'resource', 'requestKind', 'requestResource', 'name', 'namespace', 'operation', 'userInfo', 'object', 'oldObject', 'dryRun', 'options']);
  assert.equal(r.object, null);
  assert.deepEqual(r.userInfo, { username: 'alice', groups: ['devs'] });
  assert.equal(r.dryRun, false);
});

test('the first supported review version of the list is used', () => {
  assert.equal(reviewVersionFor(['v2', 'v1beta1', 'v1']), 'v1beta1');
  assert.equal(reviewVersionFor(['v2']), undefined);
});

test('v1 answers must echo uid and type and pair patch with patchType', () => {
  const ok = { apiVersion: 'admission.orch.io/v1', kind: 'AdmissionReview', response: { uid: 'u-1', allowed: true } };
  assert.equal(verifyAdmissionResponse('h', 'v1', 'u-1', false, ok).allowed, true);
  const reason = (body: unknown, mutating = true): string => {
    try {
      verifyAdmissionResponse('h', 'v1', 'u-1', mutating, body);
    } catch (err) {
      assert.ok(err instanceof CallingWebhookError);
      assert.equal(err.status.code, 503);
      return err.message;
    }
    return 'accepted';
  };
  assert.equal(reason({}), 'failed calling webhook "h": received invalid webhook response: webhook response was absent');
  assert.equal(reason({ ...ok, response: { uid: 'x', allowed: true } }), 'failed calling webhook "h": received invalid webhook response: expected response.uid="u-1", got "x"');
  assert.equal(
    reason({ ...ok, apiVersion: 'admission.orch.io/v1beta1' }),
    'failed calling webhook "h": received invalid webhook response: expected webhook response of admission.orch.io/v1, Kind=AdmissionReview, got admission.orch.io/v1beta1, Kind=AdmissionReview',
  );
  assert.equal(reason({ ...ok, response: { uid: 'u-1', allowed: true, patch: 'W10=' } }), 'failed calling webhook "h": received invalid webhook response: webhook returned response.patch but not response.patchType');
  assert.equal(reason({ ...ok, response: { uid: 'u-1', allowed: true, patchType: 'JSONPatch' } }), 'failed calling webhook "h": received invalid webhook response: webhook returned response.patchType but not response.patch');
  assert.equal(reason({ ...ok, response: { uid: 'u-1', allowed: true, patch: 'W10=' } }, false), 'failed calling webhook "h": received invalid webhook response: validating webhook may not return response.patch');
});

test('v1beta1 answers are taken as they come, a patch being a JSON patch', () => {
  const r = verifyAdmissionResponse('h', 'v1beta1', 'u-1', true, { response: { allowed: true, patch: Buffer.from('[]').toString('base64') } });
  assert.equal(r.patchType, 'JSONPatch');
  assert.equal(r.patch, '[]');
});

test('rejections keep the webhook code (403 below 400) and name the webhook', () => {
  const custom = rejectionError('deny.example.com', { code: 409, message: 'taken', reason: 'AlreadyExists' });
  assert.equal(custom.code, 409);
  assert.equal(custom.message, 'admission webhook "deny.example.com" denied the request: taken');
  assert.equal(custom.status.reason, 'AlreadyExists');
  const bare = rejectionError('deny.example.com', undefined);
  assert.equal(bare.code, 403);
  assert.equal(bare.message, 'admission webhook "deny.example.com" denied the request without explanation');
  assert.equal('reason' in bare.status, false);
  assert.equal(rejectionError('d', { code: 200, reason: 'NoWay' }).message, 'admission webhook "d" denied the request: NoWay');
  assert.equal(rejectionError('d', { code: 200 }).code, 403);
});
