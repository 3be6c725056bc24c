// Bodies as Go writes them: struct fields in declaration order, omitempty zero values left
// out, map keys sorted. The expected text of a ConfigMap is Go's own encoding of one with
// every field set (kubernetes/api testdata at v0.27.16).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alreadyExists, invalid, requiredField } from '../apimachinery/errors.js';
import { extension, group, setFlavor } from '../naming/index.js';
import { inGoOrder } from './field-order.js';
import { jsonSerializer } from './serializer.js';

const GO_CONFIG_MAP =
  '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"nameValue","generateName":"generateNameValue","namespace":"namespaceValue","selfLink":"selfLinkValue","uid":"uidValue","resourceVersion":"resourceVersionValue","generation":7,"creationTimestamp":"2008-01-01T01:01:01Z","deletionTimestamp":"2009-01-01T01:01:01Z","deletionGracePeriodSeconds":10,"labels":{"labelsKey":"labelsValue"},"annotations":{"annotationsKey":"annotationsValue"},"ownerReferences":[{"apiVersion":"apiVersionValue","kind":"kindValue","name":"nameValue","uid":"uidValue","controller":true,"blockOwnerDeletion":true}],"finalizers":["finalizersValue"],"managedFields":[{"manager":"managerValue","operation":"operationValue","apiVersion":"apiVersionValue","time":"2004-01-01T01:01:01Z","fieldsType":"fieldsTypeValue","fieldsV1":{},"subresource":"subresourceValue"}]},"immutable":true,"data":{"dataKey":"dataValue"},"binaryData":{"binaryDataKey":"Aw=="}}';

/** The same value with every object's keys in reverse order. */
function scrambled(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(scrambled);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.keys(v).reverse().map((k) => [k, scrambled((v as Record<string, unknown>)[k])]));
}

const text = (v: unknown): string => new TextDecoder().decode(jsonSerializer.encode(v, { pretty: false })).trimEnd();

describe('Go field order', () => {
  it('writes a built-in object in declaration order, whatever order it was built in', () => {
    const cm = JSON.parse(GO_CONFIG_MAP) as unknown;
    assert.equal(text(scrambled(cm)), GO_CONFIG_MAP);
  });

  it('leaves a value already in order as it is', () => {
    const cm = JSON.parse(GO_CONFIG_MAP) as unknown;
    assert.equal(inGoOrder(cm), cm);
  });

  it('writes a Status with details before code and an empty group left out', () => {
    assert.equal(
      text(alreadyExists({ group: '', resource: 'services' }, 'mock-2').status),
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"services \\"mock-2\\" already exists","reason":"AlreadyExists","details":{"name":"mock-2","kind":"services"},"code":409}',
    );
    const built = { code: 422, details: { causes: [{ field: 'f', message: 'm', reason: 'r' }], kind: '', group: '', name: '' }, status: 'Failure', metadata: {}, apiVersion: 'v1', kind: 'Status' };
    assert.equal(text(built), '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","details":{"causes":[{"reason":"r","message":"m","field":"f"}]},"code":422}');
    const err = invalid({ group: 'apps', kind: 'Deployment' }, 'd', [requiredField('spec.selector')]);
    assert.match(text(err.status), /"details":\{"name":"d","group":"apps","kind":"Deployment","causes":\[\{"reason":"FieldValueRequired","message":"Required value","field":"spec.selector"\}\]\},"code":422\}$/);
  });

  it('writes lists, watch events and Tables kind first, their objects in order too', () => {
    const list = { apiVersion: 'v1', items: [{ metadata: { name: 'a' }, apiVersion: 'v1', kind: 'ConfigMap', data: { b: '1', a: '2' } }], metadata: { resourceVersion: '5' }, kind: 'ConfigMapList' };
    assert.equal(text(list), '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"a":"2","b":"1"}}]}');
    const event = { object: { metadata: { name: 'a' }, apiVersion: 'v1', kind: 'ConfigMap' }, type: 'ADDED' };
    assert.equal(text(event), '{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}}');
    const table = { apiVersion: 'meta.k8s.io/v1', kind: 'Table', metadata: {}, columnDefinitions: [], rows: [{ object: { metadata: { name: 'a' }, apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata' }, cells: ['a'] }] };
    assert.equal(
      text(table),
      '{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":[{"cells":["a"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a"}}}]}',
    );
  });

  it('writes a custom resource with every key sorted, as Go writes a map', () => {
    const cr = { kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'w', labels: { z: '1', a: '2' } }, spec: { size: 1, color: 'red', parts: [{ y: 1, b: 2 }] } };
    assert.equal(text(cr), '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"labels":{"a":"2","z":"1"},"name":"w"},"spec":{"color":"red","parts":[{"b":2,"y":1}],"size":1}}');
  });

  it('keeps the bytes a client sent in a ControllerRevision and the order of unknown fields', () => {
    const rev = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: { spec: {}, kind: 'X', apiVersion: 'v1' }, revision: 1 };
    assert.equal(text(rev), '{"kind":"ControllerRevision","apiVersion":"apps/v1","metadata":{"name":"r"},"data":{"spec":{},"kind":"X","apiVersion":"v1"},"revision":1}');
    const extra = { zz: 1, apiVersion: 'v1', kind: 'ConfigMap', aa: 2, metadata: {} };
    assert.equal(text(extra), '{"kind":"ConfigMap","apiVersion":"v1","metadata":{},"zz":1,"aa":2}');
  });

  it('names schema extensions in the flavor of the moment, after a switch too', () => {
    try {
      for (const f of ['orch', 'kubernetes', 'orch'] as const) {
        setFlavor(f);
        const schema = { [extension('validations')]: [{ rule: 'true' }], [extension('preserve-unknown-fields')]: true, type: 'object', description: 'd' };
        const crd = { metadata: {}, spec: { versions: [{ schema: { openAPIV3Schema: schema }, name: 'v1' }] }, kind: 'CustomResourceDefinition', apiVersion: `${group('apiextensions')}/v1` };
        const written = JSON.parse(text(crd)) as { spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] } };
        assert.deepEqual(Object.keys(written.spec.versions[0]!.schema.openAPIV3Schema), ['description', 'type', extension('preserve-unknown-fields'), extension('validations')], f);
      }
    } finally {
      setFlavor('orch');
    }
  });
});
