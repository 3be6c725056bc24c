import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { strategyOf } from '../../testing/apis.js';

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);
const G = 'admissionregistration.orch.io';

describe('webhook configurations', () => {
  const s = strategyOf(G, 'mutatingwebhookconfigurations');
  const config = (webhook: Record<string, unknown>): KubeObject => ({
    metadata: { name: 'cfg' },
    webhooks: [
      {
        name: 'hook.example.com',
        clientConfig: { service: { namespace: 'ns', name: 'svc' } },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        ...webhook,
      },
    ],
  });

  it('get the v1 defaults and pass', () => {
    const o = config({});
    s.defaults(o);
    const w = (o.webhooks as Record<string, unknown>[])[0];
    assert.equal(w.failurePolicy, 'Fail');
    assert.equal(w.matchPolicy, 'Equivalent');
    assert.equal(w.timeoutSeconds, 10);
    assert.equal(w.reinvocationPolicy, 'Never');
    assert.deepEqual(w.namespaceSelector, {});
    assert.deepEqual((w.clientConfig as { service: Record<string, unknown> }).service.port, 443);
    assert.equal((w.rules as Record<string, unknown>[])[0].scope, '*');
    assert.deepEqual(s.validate(o), []);
  });

  it('need side effects, review versions, a valid client config and a qualified name', () => {
    const o = config({ name: 'hook', sideEffects: undefined, admissionReviewVersions: ['v2'], timeoutSeconds: 31, clientConfig: { url: 'http://example.com/x?y=1' } });
    s.defaults(o);
    (o.webhooks as Record<string, unknown>[])[0].timeoutSeconds = 31;
    assert.deepEqual(rendered(s.validate(o)), [
      'webhooks[0].name: Invalid value: "hook": should be a domain with at least three segments separated by dots',
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      `webhooks[0].clientConfig.url: Invalid value: "http://example.com/x?y=1": 'https' is the only allowed URL scheme`,
      'webhooks[0].clientConfig.url: Invalid value: "http://example.com/x?y=1": query parameters are not permitted in the URL',
    ]);
    const both = config({ clientConfig: {} });
    s.defaults(both);
    assert.deepEqual(rendered(s.validate(both)), ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
  });

  it('need a service path of DNS subdomain segments after a leading slash', () => {
    const paths = (path: string): string[] => {
      const o = config({ clientConfig: { service: { namespace: 'ns', name: 'svc', path } } });
      s.defaults(o);
      return rendered(s.validate(o));
    };
    assert.deepEqual(paths('/validate/pods/'), []);
    assert.deepEqual(paths('/'), []);
    assert.deepEqual(paths('//'), ['webhooks[0].clientConfig.service.path: Invalid value: "//": segment[0] may not be empty']);
    assert.deepEqual(paths('hook'), [`webhooks[0].clientConfig.service.path: Invalid value: "hook": must start with a '/'`]);
    assert.deepEqual(paths('/a//b'), ['webhooks[0].clientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty']);
    assert.equal(paths('/Upper').length, 1);
    assert.match(paths('/Upper')[0]!, /^webhooks\[0\]\.clientConfig\.service\.path: Invalid value: "\/Upper": segment\[0\]: a lowercase RFC 1123 subdomain/);
  });
});
