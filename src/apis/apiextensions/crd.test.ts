import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { strategyOf } from '../testing.js';

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);

describe('custom resource definitions', () => {
  const s = strategyOf('apiextensions.orch.io', 'customresourcedefinitions');
  const crd = (): KubeObject => ({
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v1beta1', served: true, storage: false },
      ],
    },
  });

  it('default names and conversion, and record the stored version', () => {
    const o = crd();
    s.defaults(o);
    s.prepareForCreate(o);
    const spec = o.spec as { names: Record<string, unknown>; conversion: unknown };
    assert.deepEqual(spec.names, { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
    assert.deepEqual(spec.conversion, { strategy: 'None' });
    assert.deepEqual(o.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    assert.deepEqual(s.validate(o), []);
    const next = structuredClone(o);
    (next.spec as { versions: { storage: boolean }[] }).versions[0].storage = false;
    (next.spec as { versions: { storage: boolean }[] }).versions[1].storage = true;
    s.prepareForUpdate(next, o);
    assert.deepEqual((next.status as { storedVersions: string[] }).storedVersions, ['v1', 'v1beta1']);
  });

  it('need the plural.group name and one storage version', () => {
    const o = crd();
    o.metadata = { name: 'widgets' };
    (o.spec as { versions: { storage: boolean }[] }).versions[1].storage = true;
    s.defaults(o);
    const errs = rendered(s.validate(o));
    assert.equal(errs[0], 'metadata.name: Invalid value: "widgets": must be spec.names.plural+"."+spec.group');
    assert.match(errs[1], /^spec\.versions: Invalid value: .*: must have exactly one version marked as storage version$/);
  });
});
