import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../apimachinery/errors.js';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { checkCustomResourceFields, customResourceOf, type Pruner } from './field-validation.js';
import type { FieldValidation } from './options.js';

const KIND = { group: 'stable.example.com', version: 'v1', kind: 'CronTab' };
const SCHEMA: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } };
/** Stands for the schema's pruning: removes `spec.bogus` and reports it as pruning does, with a leading dot. */
const prune: Pruner = (obj) => {
  const spec = obj.spec as Record<string, unknown> | undefined;
  if (!spec || !Object.hasOwn(spec, 'bogus')) return [];
  delete spec.bogus;
  return ['.spec.bogus'];
};
const enc = new TextEncoder();

function run(body: string, level: FieldValidation, opts: { patched?: boolean; contentType?: string; schema?: JSONSchemaProps | null } = {}): string[] | ApiError {
  const obj = JSON.parse(body) as KubeObject;
  const copy = structuredClone(obj);
  try {
    const out = checkCustomResourceFields(enc.encode(body), obj, KIND, level, opts.contentType ?? 'application/json', opts.patched ?? false, opts.schema === null ? undefined : (opts.schema ?? SCHEMA), prune);
    assert.deepEqual(obj, copy, 'the checked object is left as it was');
    return out;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
}

describe('field validation of custom resources', () => {
  const cases: [string, string, FieldValidation, { patched?: boolean; contentType?: string; schema?: JSONSchemaProps | null }, string[] | { code: number; message: string }][] = [
    ['unknown field, Warn', '{"spec":{"bogus":1}}', 'Warn', {}, ['unknown field "spec.bogus"']],
    ['unknown field, Ignore', '{"spec":{"bogus":1}}', 'Ignore', {}, []],
    ['nothing unknown, Strict', '{"spec":{"a":"x"}}', 'Strict', {}, []],
    ['duplicates first, then unknown fields', '{"spec":{"a":"x","a":"y","bogus":1}}', 'Warn', {}, ['duplicate field "spec.a"', 'unknown field "spec.bogus"']],
    [
      'metadata fields ObjectMeta lacks come before the schema\'s unknown fields, nested ones too',
      '{"metadata":{"name":"x","foo":1,"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"u","bar":2}]},"spec":{"bogus":1}}',
      'Warn',
      {},
      ['unknown field "metadata.foo"', 'unknown field "metadata.ownerReferences[0].bar"', 'unknown field "spec.bogus"'],
    ],
    ['metadata of the wrong type is not field validation\'s to report', '{"metadata":{"name":1,"foo":1}}', 'Warn', { schema: null }, []],
    ['YAML bodies have no duplicates to report', '{"spec":{"a":"x","a":"y"}}', 'Warn', { contentType: 'application/yaml' }, []],
    ['no schema: nothing is unknown', '{"spec":{"bogus":1}}', 'Strict', { schema: null }, []],
    [
      'Strict create',
      '{"spec":{"a":"x","a":"y","bogus":1}}',
      'Strict',
      {},
      { code: 400, message: 'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: duplicate field "spec.a", unknown field "spec.bogus"' },
    ],
    [
      'Strict patch: 422 naming the patched object',
      '{"spec":{"bogus":1}}',
      'Strict',
      { patched: true },
      { code: 422, message: ' "" is invalid: patch: Invalid value: "{\\"spec\\":{\\"bogus\\":1}}": strict decoding error: unknown field "spec.bogus"' },
    ],
  ];
  for (const [name, body, level, opts, want] of cases) {
    it(name, () => {
      const got = run(body, level, opts);
      if (Array.isArray(want)) assert.deepEqual(got, want);
      else {
        assert.ok(got instanceof ApiError, JSON.stringify(got));
        assert.equal(got.code, want.code);
        assert.equal(got.status.message, want.message);
      }
    });
  }

  it('the scale subresource is a built-in kind, checked as such', () => {
    const info = { crdName: 'crontabs.stable.example.com', crdUID: 'u', schema: SCHEMA };
    const def = { group: 'stable.example.com', version: 'v1', kind: 'CronTab', customResource: info };
    assert.equal(customResourceOf(def, { group: 'autoscaling', version: 'v1', kind: 'Scale' }), undefined);
    assert.equal(customResourceOf(def, { group: 'stable.example.com', version: 'v1', kind: 'CronTab' }), info);
    assert.equal(customResourceOf({ group: '', version: 'v1', kind: 'Pod' }, { group: '', version: 'v1', kind: 'Pod' }), undefined);
  });
});
