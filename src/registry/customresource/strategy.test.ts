import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { Strategy } from '../../rest/index.js';
import { customResourceStrategy, type VersionSchema } from './strategy.js';

const scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

function strategy(status: boolean, schemas = new Map<string, VersionSchema>()): Strategy {
  return customResourceStrategy({ group: 'example.com', namespaced: true, status, scale, columns: [], schemas });
}

function obj(extra: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a', generation: 1, ...metadata }, spec: { replicas: 1 }, ...extra };
}

test('create drops status only with the status subresource', () => {
  const withSub = obj({ status: { replicas: 1 } });
  strategy(true).prepareForCreate(withSub);
  assert.equal(withSub.status, undefined);
  const without = obj({ status: { replicas: 1 } });
  strategy(false).prepareForCreate(without);
  assert.deepEqual(without.status, { replicas: 1 });
});

test('update of the main resource: status kept with the subresource, generation raised by changes outside metadata', () => {
  const cases: { name: string; status: boolean; old: KubeObject; next: KubeObject; generation: number; wantStatus: unknown }[] = [
    { name: 'spec change', status: true, old: obj(), next: obj({ spec: { replicas: 2 } }), generation: 2, wantStatus: undefined },
    { name: 'metadata change', status: true, old: obj(), next: obj({}, { labels: { a: 'b' } }), generation: 1, wantStatus: undefined },
    { name: 'status ignored with the subresource', status: true, old: obj({ status: { replicas: 1 } }), next: obj({ status: { replicas: 5 } }), generation: 1, wantStatus: { replicas: 1 } },
    { name: 'status set on an object without one', status: true, old: obj(), next: obj({ status: { replicas: 5 } }), generation: 1, wantStatus: undefined },
    { name: 'status is a field without the subresource', status: false, old: obj({ status: { replicas: 1 } }), next: obj({ status: { replicas: 5 } }), generation: 2, wantStatus: { replicas: 5 } },
    { name: 'another top-level field', status: false, old: obj(), next: obj({ data: 1 }), generation: 2, wantStatus: undefined },
    { name: 'key order is no change', status: false, old: obj({ spec: { a: 1, b: 2 } }), next: obj({ spec: { b: 2, a: 1 } }), generation: 1, wantStatus: undefined },
  ];
  for (const c of cases) {
    strategy(c.status).prepareForUpdate(c.next, c.old);
    assert.equal(c.next.metadata?.generation, c.generation, c.name);
    assert.deepEqual(c.next.status, c.wantStatus, c.name);
  }
});

test('/status keeps everything but status from the old object, metadata included (managed fields aside)', () => {
  const old = obj({ status: { replicas: 1 } }, { labels: { a: 'old' }, annotations: { n: 'old' }, finalizers: ['x/y'] });
  const next = obj({ spec: { replicas: 9 }, extra: true, status: { replicas: 3 } }, { labels: { a: 'new' }, finalizers: [], managedFields: [{ manager: 'm' }] });
  strategy(true).prepareForStatusUpdate(next, old, new Date());
  assert.deepEqual(next, obj({ status: { replicas: 3 } }, { labels: { a: 'old' }, annotations: { n: 'old' }, finalizers: ['x/y'], managedFields: [{ manager: 'm' }] }));
  const cleared = obj({}, {});
  strategy(true).prepareForStatusUpdate(cleared, old, new Date());
  assert.equal(cleared.status, undefined);
});

test('scale paths are validated as Kubernetes validates them', () => {
  const cases: [Record<string, unknown>, string[]][] = [
    [{ spec: { replicas: 1 }, status: { replicas: 0, selector: 'a=b' } }, []],
    [{ spec: {} }, []],
    [{ spec: { replicas: -1 } }, ['.spec.replicas: Invalid value: -1: should be a non-negative integer']],
    [{ spec: { replicas: 2147483648 } }, ['.spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647']],
    [{ spec: { replicas: 'two' } }, ['.spec.replicas: Invalid value: 0: .spec.replicas accessor error: two is of the type string, expected int64']],
    [{ spec: { replicas: 1.5 } }, ['.spec.replicas: Invalid value: 0: .spec.replicas accessor error: 1.5 is of the type float64, expected int64']],
    [{ spec: 'x' }, ['.spec.replicas: Invalid value: 0: .spec accessor error: x is of the type string, expected map[string]interface{}']],
    [{ status: { replicas: -2 } }, ['.status.replicas: Invalid value: -2: should be a non-negative integer']],
    [{ status: { selector: 3 } }, ['.status.selector: Invalid value: "": .status.selector accessor error: 3 is of the type int64, expected string']],
  ];
  for (const [fields, want] of cases) {
    const o: KubeObject = { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a' }, ...fields };
    const render = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);
    assert.deepEqual(render(strategy(true).validate(o)), want, JSON.stringify(fields));
    assert.deepEqual(render(strategy(true).validateUpdate(o, o)), want, JSON.stringify(fields));
  }
});

test('scale access reads and writes the paths', () => {
  const s = strategy(true).scale;
  assert.ok(s);
  const o = obj({ status: { replicas: 2, selector: 'app=a' } });
  assert.deepEqual([s.specReplicas(o), s.statusReplicas(o), s.selector(o)], [1, 2, 'app=a']);
  const empty: KubeObject = { metadata: { name: 'a' } };
  assert.deepEqual([s.specReplicas(empty), s.statusReplicas(empty), s.selector(empty)], [0, 0, '']);
  s.setSpecReplicas(empty, 4);
  assert.deepEqual(empty.spec, { replicas: 4 });
});

test('CEL rules of the version the object is in run on create and update, with the old object', () => {
  const seen: unknown[] = [];
  const v1: VersionSchema = {
    schema: { type: 'object' },
    cel: {
      empty: false,
      validate(o, old) {
        seen.push(old);
        return [{ type: 'FieldValueInvalid', field: 'spec', detail: `Invalid value: "object": rule of v1` }];
      },
    },
  };
  const s = strategy(false, new Map([['v1', v1]]));
  assert.deepEqual(s.validate(obj()).map((e) => e.detail), ['Invalid value: "object": rule of v1']);
  const old = obj();
  s.validateUpdate(obj(), old);
  assert.deepEqual(seen, [undefined, old]);
  // An object of another version meets that version's rules (none here).
  assert.deepEqual(s.validate({ ...obj(), apiVersion: 'example.com/v2' }), []);
});

test('field selectors: only metadata.name and metadata.namespace', () => {
  const s = strategy(true);
  assert.deepEqual(s.fieldSelectorKeys, []);
  assert.deepEqual(s.selectableFields(obj()), {});
  assert.equal(s.allowUnconditionalUpdate, false);
  assert.equal(s.validateName, undefined, 'names are DNS-1123 subdomains, the default rule');
});
