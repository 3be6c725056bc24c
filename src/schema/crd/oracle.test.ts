// Expected messages taken from Kubernetes 1.27's own tests of custom resource validation;
// compared as sets, as those tests compare them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { validateCustomResourceValue } from './index.js';

function errorSet(obj: Record<string, unknown>, schema: JSONSchemaProps): string[] {
  return [...new Set(validateCustomResourceValue(obj, schema).map((e) => `${e.field}: ${e.detail}`))].sort();
}

const field = (s: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { field: s } });

describe('Kubernetes messages', () => {
  const cases: { name: string; schema: JSONSchemaProps; good?: unknown[]; bad: [unknown, string[]][] }[] = [
    {
      name: 'object field',
      schema: field({ type: 'object' }),
      bad: [
        ['foo', ['field: Invalid value: "string": field in body must be of type object: "string"']],
        [42, ['field: Invalid value: "integer": field in body must be of type object: "integer"']],
        [true, ['field: Invalid value: "boolean": field in body must be of type object: "boolean"']],
        [1.2, ['field: Invalid value: "number": field in body must be of type object: "number"']],
        [[], ['field: Invalid value: "array": field in body must be of type object: "array"']],
        [null, ['field: Invalid value: "null": field in body must be of type object: "null"']],
      ],
    },
    {
      name: 'nullable int-or-string',
      schema: field({ nullable: true, 'x-kubernetes-int-or-string': true }),
      good: [null, 42, 'foo'],
      bad: [
        [true, ['field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"']],
        [1.2, ['field: Invalid value: "number": field in body must be of type integer,string: "number"']],
        [{}, ['field: Invalid value: "object": field in body must be of type integer,string: "object"']],
      ],
    },
    {
      name: 'int-or-string with anyOf',
      schema: field({ nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }),
      good: [null, 42, 'foo'],
      bad: [
        [
          true,
          [
            '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
            'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
            'field: Invalid value: "boolean": field in body must be of type integer: "boolean"',
          ],
        ],
      ],
    },
    {
      name: 'int-or-string with allOf',
      schema: field({ nullable: true, 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] }),
      good: [null, 42, 'foo'],
      bad: [
        [
          [],
          [
            '<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated',
            '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
            'field: Invalid value: "array": field in body must be of type integer,string: "array"',
            'field: Invalid value: "array": field in body must be of type integer: "array"',
          ],
        ],
      ],
    },
    {
      name: 'invalid regex',
      schema: field({ type: 'string', pattern: '+' }),
      bad: [['foo', ["field: Invalid value: \"foo\": field in body should match '+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`'"]]],
    },
    {
      name: 'enum',
      schema: field({
        type: 'object',
        required: ['nestedint', 'nestedstring'],
        properties: { nestedint: { type: 'integer', enum: [1, 2] }, nestedstring: { type: 'string', enum: ['a', 'b'] } },
      }),
      bad: [
        [{}, ['field.nestedint: Required value', 'field.nestedstring: Required value']],
        [
          { nestedint: 'x', nestedstring: true },
          [
            'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
            'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
            'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
            'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
          ],
        ],
      ],
    },
    { name: 'maxProperties', schema: field({ type: 'object', maxProperties: 2 }), bad: [[{ a: true, b: true, c: true }, ['field: Too many: 3: must have at most 2 items']]] },
    { name: 'maxItems', schema: field({ type: 'array', maxItems: 2 }), bad: [[['a', 'b', 'c'], ['field: Too many: 3: must have at most 2 items']]] },
    { name: 'maxLength', schema: field({ type: 'string', maxLength: 2 }), bad: [['abc', ['field: Too long: may not be longer than 2']]] },
  ];
  for (const c of cases) {
    for (const g of c.good ?? []) it(`${c.name}: accepts ${JSON.stringify(g)}`, () => assert.deepEqual(errorSet({ field: g }, c.schema), []));
    for (const [value, want] of c.bad) {
      it(`${c.name}: refuses ${JSON.stringify(value)}`, () => assert.deepEqual(errorSet({ field: value }, c.schema), [...want].sort()));
    }
  }

  it('required at the root', () => {
    const schema: JSONSchemaProps = { type: 'object', required: ['field'], properties: { field: { type: 'object', required: ['nested'], properties: { nested: {} } } } };
    assert.deepEqual(errorSet({ test: 'a' }, schema), ['field: Required value']);
    assert.deepEqual(errorSet({ field: {} }, schema), ['field.nested: Required value']);
  });
});
