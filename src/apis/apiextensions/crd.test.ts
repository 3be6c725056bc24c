import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { strategyOf } from '../../testing/apis.js';
import { customResourceCleanupFinalizer, setCondition, validateCustomResourceDefinition } from './index.js';

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);

const DNS1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const ROOT_FIELDS = 'only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const crd = (): Json => ({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
  },
});

const twoVersions = (o: Json): void => {
  o.spec.versions.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', description: 'v2' } } });
};

describe('custom resource definitions', () => {
  const s = strategyOf('apiextensions.orch.io', 'customresourcedefinitions');
  const created = (o: Json): KubeObject => {
    const k = o as KubeObject;
    s.defaults(k);
    s.prepareForCreate(k);
    return k;
  };
  const validateCreate = (o: Json): string[] => rendered(s.validate(created(o)));

  it('default names and conversion, record the stored version and add the cleanup finalizer', () => {
    const o = created(crd());
    const spec = o.spec as { names: Record<string, unknown>; conversion: unknown };
    assert.deepEqual(spec.names, { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
    assert.deepEqual(spec.conversion, { strategy: 'None' });
    assert.deepEqual(o.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    assert.deepEqual(o.metadata?.finalizers, ['customresourcecleanup.apiextensions.orch.io']);
    assert.deepEqual(s.validate(o), []);
  });

  // Each row: a change to a valid definition, and every error Kubernetes 1.27 reports for it.
  const rows: [string, (o: Json) => void, string[]][] = [
    ['a valid definition', () => {}, []],
    ['group missing', (o) => { delete o.spec.group; o.metadata.name = 'widgets.'; }, ['spec.group: Required value']],
    ['group without a dot', (o) => { o.spec.group = 'example'; o.metadata.name = 'widgets.example'; }, ['spec.group: Invalid value: "example": should be a domain with at least one dot']],
    ['group not a DNS subdomain', (o) => { o.spec.group = 'Example.com'; o.metadata.name = 'widgets.Example.com'; }, [`spec.group: Invalid value: "Example.com": ${DNS1123_SUBDOMAIN}`]],
    ['name other than plural.group', (o) => { o.metadata.name = 'gadgets.example.com'; }, ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']],
    ['scope missing', (o) => { delete o.spec.scope; }, ['spec.scope: Required value']],
    ['scope unknown', (o) => { o.spec.scope = 'Global'; }, ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']],
    ['plural not a DNS-1035 label', (o) => { o.spec.names.plural = 'Widgets'; o.metadata.name = 'Widgets.example.com'; }, [`spec.names.plural: Invalid value: "Widgets": ${DNS1035}`]],
    ['singular not a DNS-1035 label', (o) => { o.spec.names.singular = '1widget'; }, [`spec.names.singular: Invalid value: "1widget": ${DNS1035}`]],
    ['kind missing', (o) => { delete o.spec.names.kind; }, ['spec.names.singular: Required value', 'spec.names.kind: Required value', 'spec.names.listKind: Required value']],
    ['kind with a space', (o) => { o.spec.names.kind = 'Wid get'; o.spec.names.singular = 'widget'; o.spec.names.listKind = 'WidgetList'; }, [`spec.names.kind: Invalid value: "Wid get": may have mixed case, but should otherwise match: ${DNS1035}`]],
    ['listKind equal to kind', (o) => { o.spec.names.listKind = 'Widget'; }, ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same']],
    ['a bad short name', (o) => { o.spec.names.shortNames = ['w', 'W_1']; }, [`spec.names.shortNames[1]: Invalid value: "W_1": ${DNS1035}`]],
    ['an upper-case category', (o) => { o.spec.names.categories = ['All']; }, [`spec.names.categories[0]: Invalid value: "All": ${DNS1035}`]],
    ['no storage version', (o) => { o.spec.versions[0].storage = false; }, [
      `spec.versions: Invalid value: ${JSON.stringify([{ name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } }])}: must have exactly one version marked as storage version`,
      'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
    ]],
    ['two versions of one name', (o) => { twoVersions(o); o.spec.versions[1].name = 'v1'; }, [`spec.versions: Invalid value: ${JSON.stringify([
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
      { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', description: 'v2' } } },
    ])}: must contain unique version names`]],
    ['a version name not a DNS-1035 label', (o) => { o.spec.versions[0].name = 'V1'; }, [`spec.versions[0].name: Invalid value: "V1": ${DNS1035}`, `spec.version: Invalid value: "V1": ${DNS1035}`]],
    ['no schema', (o) => { delete o.spec.versions[0].schema; }, ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']],
    ['a schema on one version only', (o) => { twoVersions(o); delete o.spec.versions[1].schema; }, ['spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required']],
    ['nullable at the root of the shared schema', (o) => { o.spec.versions[0].schema.openAPIV3Schema.nullable = true; }, ['spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root']],
    ['nullable at the root of one version', (o) => { twoVersions(o); o.spec.versions[1].schema.openAPIV3Schema.nullable = true; }, ['spec.versions[1].schema.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root']],
    ['with status, a root type other than object', (o) => {
      o.spec.versions[0].subresources = { status: {} };
      o.spec.versions[0].schema.openAPIV3Schema = { type: 'string' };
    }, [
      'spec.validation.openAPIV3Schema.type: Invalid value: "string": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      'spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root',
    ]],
    ['with status, other fields at the root', (o) => {
      o.spec.versions[0].subresources = { status: {} };
      o.spec.versions[0].schema.openAPIV3Schema = { type: 'object', 'x-orch-preserve-unknown-fields': true, anyOf: [{ required: ['a'] }] };
    }, [`spec.validation.openAPIV3Schema: Invalid value: ${JSON.stringify({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, anyOf: [{ required: ['a'] }] })}: ${ROOT_FIELDS}`]],
    ['with status on one version, other fields at its root', (o) => {
      twoVersions(o);
      o.spec.versions[1].subresources = { status: {} };
      o.spec.versions[1].schema.openAPIV3Schema.maxProperties = 5;
    }, [`spec.versions[1].schema.openAPIV3Schema: Invalid value: ${JSON.stringify({ type: 'object', description: 'v2', maxProperties: 5 })}: ${ROOT_FIELDS}`]],
    ['a scale subresource with bad paths', (o) => {
      o.spec.versions[0].subresources = { scale: { specReplicasPath: '.status.replicas', labelSelectorPath: 'spec.selector' } };
    }, [
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Required value',
      'spec.subresources.scale.labelSelectorPath: Invalid value: "spec.selector": must be a simple json path starting with .',
    ]],
    ['a label selector path outside spec and status', (o) => {
      o.spec.versions[0].subresources = { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.metadata.labels' } };
    }, ['spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status']],
    ['a good scale subresource', (o) => {
      o.spec.versions[0].subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } };
    }, []],
    ['per-version subresources', (o) => {
      twoVersions(o);
      o.spec.versions[1].subresources = { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: 'status' } };
    }, ['spec.versions[1].subresources.scale.statusReplicasPath: Invalid value: "status": must be a simple json path starting with .']],
    ['bad printer columns', (o) => {
      o.spec.versions[0].additionalPrinterColumns = [
        { name: 'Size', type: 'time', format: 'uuid', jsonPath: 'spec.size' },
        { type: '', jsonPath: '' },
        { name: 'Ok', type: 'integer', format: 'int32', jsonPath: '.spec.size', priority: 1 },
      ];
    }, [
      'spec.additionalPrinterColumns[0].type: Invalid value: "time": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
      'spec.additionalPrinterColumns[1].name: Required value',
      'spec.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[1].JSONPath: Required value',
    ]],
    ['per-version printer columns', (o) => {
      twoVersions(o);
      o.spec.versions[0].additionalPrinterColumns = [{ name: 'Size', type: 'string', jsonPath: '.spec.size' }];
      o.spec.versions[1].additionalPrinterColumns = [{ name: 'Size', type: 'date', jsonPath: '' }];
    }, ['spec.versions[1].additionalPrinterColumns[0].JSONPath: Required value']],
    ['a deprecation warning on a current version', (o) => { o.spec.versions[0].deprecationWarning = 'old'; }, ['spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions']],
    ['an empty deprecation warning', (o) => { o.spec.versions[0].deprecated = true; o.spec.versions[0].deprecationWarning = ''; }, ['spec.versions[0].deprecationWarning: Invalid value: "": must not be an empty string']],
    ['a deprecation warning with a tab', (o) => { o.spec.versions[0].deprecated = true; o.spec.versions[0].deprecationWarning = 'é\tx'; }, ['spec.versions[0].deprecationWarning: Invalid value: "é\\tx": must only contain printable UTF-8 characters; non-printable character found at index 2']],
    ['a long deprecation warning', (o) => { o.spec.versions[0].deprecated = true; o.spec.versions[0].deprecationWarning = 'x'.repeat(257); }, [`spec.versions[0].deprecationWarning: Invalid value: "${'x'.repeat(257)}": must be <= 256 characters long`]],
    ['preserveUnknownFields', (o) => { o.spec.preserveUnknownFields = true; }, ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead']],
    ['preserveUnknownFields with defaults and webhook conversion', (o) => {
      o.spec.preserveUnknownFields = true;
      o.spec.versions[0].schema.openAPIV3Schema.properties = { a: { type: 'string', default: 'x' } };
      o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://conv.example.com/x' }, conversionReviewVersions: ['v1'] } };
    }, [
      'spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema',
      'spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true',
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ]],
    ['an unknown conversion strategy', (o) => { o.spec.conversion = { strategy: 'Magic' }; }, ['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"']],
    ['webhook conversion without a webhook', (o) => { o.spec.conversion = { strategy: 'Webhook' }; }, [
      'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
      'spec.conversion.conversionReviewVersions: Required value',
    ]],
    ['webhook conversion with both url and service', (o) => {
      o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://a', service: { name: 's', namespace: 'n' } }, conversionReviewVersions: ['v1'] } };
    }, ['spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required']],
    ['webhook conversion to a bad url', (o) => {
      o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://u:p@conv.example.com/x?a=1#top' }, conversionReviewVersions: ['v2', 'v2'] } };
    }, [
      `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'spec.conversion.webhookClientConfig.url: Invalid value: "u:p": user information is not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "top": fragments are not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "a=1": query parameters are not permitted in the URL',
      'spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
      'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1',
    ]],
    ['webhook conversion to a url without host', (o) => {
      o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'conv' }, conversionReviewVersions: ['v1beta1'] } };
    }, [
      `spec.conversion.webhookClientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'spec.conversion.webhookClientConfig.url: Invalid value: "": host must be provided; desired format: https://host[/path]',
    ]],
    ['webhook conversion to a bad service', (o) => {
      o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: '', name: '', port: 70000, path: '/a//B' } }, conversionReviewVersions: ['v1'] } };
    }, [
      'spec.conversion.webhookClientConfig.service.name: Required value: service name is required',
      'spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required',
      'spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
      'spec.conversion.webhookClientConfig.service.path: Invalid value: "/a//B": segment[1] may not be empty',
      `spec.conversion.webhookClientConfig.service.path: Invalid value: "/a//B": segment[2]: ${DNS1123_SUBDOMAIN}`,
    ]],
    ['a good webhook conversion to a service (port defaulted)', (o) => {
      o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'ns', name: 'conv', path: '/convert' } }, conversionReviewVersions: ['v1', 'v1beta1'] } };
    }, []],
    ['a webhook with None conversion', (o) => {
      o.spec.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://a' }, conversionReviewVersions: ['v1'] } };
    }, [
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ]],
    ['a group of the project without approval', (o) => { o.spec.group = 'widgets.orch.io'; o.metadata.name = 'widgets.widgets.orch.io'; }, [
      'metadata.annotations[api-approved.orch.io]: Required value: protected groups must have approval annotation "api-approved.orch.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ]],
    ['a group of the project with a bad approval', (o) => { o.spec.group = 'orch.io'; o.metadata.name = 'widgets.orch.io'; o.metadata.annotations = { 'api-approved.orch.io': 'yes' }; }, [
      'metadata.annotations[api-approved.orch.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.orch.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ]],
    ['a group of the project, approved', (o) => { o.spec.group = 'x.orch.io'; o.metadata.name = 'widgets.x.orch.io'; o.metadata.annotations = { 'api-approved.orch.io': 'https://github.com/kubernetes/kubernetes/pull/78458' }; }, []],
    ['a group of the project, unapproved on purpose', (o) => { o.spec.group = 'x.orch.io'; o.metadata.name = 'widgets.x.orch.io'; o.metadata.annotations = { 'api-approved.orch.io': 'unapproved, experimental' }; }, []],
    ['a look-alike group', (o) => { o.spec.group = 'notorch.io'; o.metadata.name = 'widgets.notorch.io'; }, []],
  ];
  for (const [name, change, expected] of rows) {
    it(`validate: ${name}`, () => {
      const o = crd();
      change(o);
      assert.deepEqual(validateCreate(o), expected);
    });
  }

  it('approval in the Kubernetes flavor is the api-approved.kubernetes.io annotation on k8s.io and kubernetes.io groups', () => {
    setFlavor('kubernetes');
    try {
      for (const g of ['apps.k8s.io', 'k8s.io', 'x.kubernetes.io']) {
        const o = created({ ...crd(), metadata: { name: `widgets.${g}` } });
        (o.spec as Json).group = g;
        assert.deepEqual(rendered(validateCustomResourceDefinition(o)), [
          'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
        ]);
      }
      const o = created({ ...crd(), metadata: { name: 'widgets.x.orch.io' } });
      (o.spec as Json).group = 'x.orch.io';
      assert.deepEqual(rendered(validateCustomResourceDefinition(o)), []);
      assert.equal(customResourceCleanupFinalizer(), 'customresourcecleanup.apiextensions.k8s.io');
    } finally {
      setFlavor('orch');
    }
  });

  const updated = (old: KubeObject, change: (o: Json) => void): { next: KubeObject; errs: string[] } => {
    const next = structuredClone(old) as Json;
    change(next);
    const k = next as KubeObject;
    s.defaults(k);
    s.prepareForUpdate(k, old);
    return { next: k, errs: rendered(s.validateUpdate(k, old)) };
  };

  it('update: a new storage version is recorded; a stored version must stay in spec.versions', () => {
    const old = created(crd());
    twoVersions(old as Json);
    const first = updated(old, (o) => {
      o.spec.versions[0].storage = false;
      o.spec.versions[1].storage = true;
    });
    assert.deepEqual(first.errs, []);
    assert.deepEqual((first.next.status as Json).storedVersions, ['v1', 'v2']);
    const second = updated(first.next, (o) => {
      o.spec.versions.shift();
    });
    assert.deepEqual(second.errs, ['status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions']);
  });

  it('update: group and plural are immutable; scope and kind once established', () => {
    const old = created(crd());
    const change = (o: Json): void => {
      o.spec.group = 'other.com';
      o.spec.names.plural = 'gadgets';
      o.spec.names.kind = 'Gadget';
      o.spec.scope = 'Cluster';
    };
    assert.deepEqual(updated(old, change).errs, [
      'spec.group: Invalid value: "other.com": field is immutable',
      'spec.names.plural: Invalid value: "gadgets": field is immutable',
    ]);
    setCondition(old, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    assert.deepEqual(updated(old, change).errs, [
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'spec.names.kind: Invalid value: "Gadget": field is immutable',
      'spec.group: Invalid value: "other.com": field is immutable',
      'spec.names.plural: Invalid value: "gadgets": field is immutable',
    ]);
  });

  it('update: the status is kept, the finalizer stays until deletion, and an old definition without schemas is not refused', () => {
    // Stored by an older release: no schema, unknown fields kept.
    const old = created(crd());
    delete (old.spec as Json).versions[0].schema;
    (old.spec as Json).preserveUnknownFields = true;
    const { next, errs } = updated(old, (o) => {
      o.status = { acceptedNames: { plural: 'x', kind: 'X' }, storedVersions: ['v9'] };
      o.metadata.finalizers = [];
      o.metadata.labels = { a: 'b' };
    });
    assert.deepEqual(errs, []);
    assert.deepEqual(next.status, old.status);
    assert.deepEqual(next.metadata?.finalizers, [customResourceCleanupFinalizer()]);
    assert.deepEqual(updated(created(crd()), (o) => { delete o.spec.versions[0].schema; }).errs, ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']);
    const deleting = structuredClone(old);
    deleting.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z';
    assert.deepEqual(updated(deleting, (o) => { o.metadata.finalizers = []; }).next.metadata?.finalizers, []);
  });

  it('status update: spec ignored, accepted names checked, stored versions may be pruned, finalizers may go', () => {
    const old = created(crd());
    twoVersions(old as Json);
    (old.status as Json).storedVersions = ['v1', 'v2'];
    const next = structuredClone(old) as Json;
    next.spec.group = 'ignored.com';
    next.status.storedVersions = ['v1'];
    next.status.acceptedNames = { plural: 'Widgets', kind: 'Widget', listKind: 'Widget' };
    next.metadata.finalizers = [];
    const k = next as KubeObject;
    s.defaults(k);
    s.prepareForStatusUpdate(k, old, new Date());
    assert.equal((k.spec as Json).group, 'example.com');
    assert.deepEqual(k.metadata?.finalizers, []);
    assert.deepEqual((k.status as Json).storedVersions, ['v1']);
    // A status write is checked by the status rules alone.
    assert.deepEqual(rendered(s.validateStatusUpdate!(k, old)), [
      `status.acceptedNames.plural: Invalid value: "Widgets": ${DNS1035}`,
      'status.acceptedNames.listKind: Invalid value: "Widget": kind and listKind may not be the same',
    ]);
  });
});
