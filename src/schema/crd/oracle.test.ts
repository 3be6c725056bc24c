// Expected messages taken from Kubernetes 1.27's own tests of custom resource validation;
// compared as sets, as those tests compare them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { validateCustomResourceValue, validateVersionSchema } from './index.js';

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

describe('Kubernetes structural-schema messages', () => {
  const P = 'spec.versions[0].schema.openAPIV3Schema';
  const forbiddenInNested = { type: 'string', additionalProperties: true, title: 'hello', description: 'world', nullable: true } as JSONSchemaProps;
  const cases: { name: string; schema: JSONSchemaProps; want: string[] }[] = [
    {
      name: 'generic fields in value validations',
      schema: {
        type: 'object',
        properties: { foo: { type: 'string' } },
        not: forbiddenInNested,
        allOf: [{ properties: { foo: forbiddenInNested } }],
        anyOf: [{ items: forbiddenInNested }],
        oneOf: [{ properties: { foo: forbiddenInNested } }],
      },
      want: [
        `${P}.anyOf[0].items.type: Forbidden: must be empty to be structural`,
        `${P}.anyOf[0].items.additionalProperties: Forbidden: must be undefined to be structural`,
        `${P}.anyOf[0].items.title: Forbidden: must be empty to be structural`,
        `${P}.anyOf[0].items.description: Forbidden: must be empty to be structural`,
        `${P}.anyOf[0].items.nullable: Forbidden: must be false to be structural`,
        `${P}.allOf[0].properties[foo].type: Forbidden: must be empty to be structural`,
        `${P}.allOf[0].properties[foo].additionalProperties: Forbidden: must be undefined to be structural`,
        `${P}.oneOf[0].properties[foo].nullable: Forbidden: must be false to be structural`,
        `${P}.not.type: Forbidden: must be empty to be structural`,
        `${P}.not.additionalProperties: Forbidden: must be undefined to be structural`,
        `${P}.not.title: Forbidden: must be empty to be structural`,
        `${P}.not.description: Forbidden: must be empty to be structural`,
        `${P}.not.nullable: Forbidden: must be false to be structural`,
        `${P}.items: Required value: because it is defined in ${P}.anyOf[0].items`,
      ],
    },
    {
      name: 'structural incomplete',
      schema: {
        type: 'object',
        properties: {
          b: { type: 'object', properties: { b: { type: 'array' } } },
          c: { type: 'array', items: { type: 'object' } },
          d: { type: 'array' },
        },
        not: {
          properties: {
            a: {},
            b: { not: { properties: { a: {}, b: { items: {} } } } },
            c: { items: { not: { items: { properties: { a: {} } } } } },
            d: { items: {} },
          },
        },
        allOf: [{ properties: { e: {} } }],
        anyOf: [{ properties: { f: {} } }],
        oneOf: [{ properties: { g: {} } }],
      },
      want: [
        `${P}.properties[d].items: Required value: because it is defined in ${P}.not.properties[d].items`,
        `${P}.properties[a]: Required value: because it is defined in ${P}.not.properties[a]`,
        `${P}.properties[b].properties[a]: Required value: because it is defined in ${P}.not.properties[b].not.properties[a]`,
        `${P}.properties[b].properties[b].items: Required value: because it is defined in ${P}.not.properties[b].not.properties[b].items`,
        `${P}.properties[c].items.items: Required value: because it is defined in ${P}.not.properties[c].items.not.items`,
        `${P}.properties[e]: Required value: because it is defined in ${P}.allOf[0].properties[e]`,
        `${P}.properties[f]: Required value: because it is defined in ${P}.anyOf[0].properties[f]`,
        `${P}.properties[g]: Required value: because it is defined in ${P}.oneOf[0].properties[g]`,
      ],
    },
    {
      name: 'metadata with non-properties',
      schema: { type: 'object', properties: { metadata: { minimum: 42.0 } } },
      want: [
        `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
        `${P}.properties[metadata].type: Required value: must not be empty for specified object fields`,
      ],
    },
    {
      name: 'metadata with other properties',
      schema: { type: 'object', properties: { metadata: { properties: { name: { pattern: '^[a-z]+$' }, labels: { type: 'object', maxLength: 4 } } } } },
      want: [
        `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
        `${P}.properties[metadata].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[metadata].properties[name].type: Required value: must not be empty for specified object fields`,
      ],
    },
    { name: 'invalid regex pattern', schema: { type: 'object', properties: { foo: { type: 'string', pattern: '+' } } }, want: [`${P}.properties[foo].pattern: Invalid value: "+": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: \`+\``] },
    { name: 'root type', schema: { type: 'integer' }, want: [`${P}.type: Invalid value: "integer": must be object at the root`] },
    { name: 'root without type', schema: { properties: { a: { type: 'string' } } }, want: [`${P}.type: Required value: must not be empty at the root`] },
    { name: 'additionalProperties at the root', schema: { type: 'object', additionalProperties: { type: 'string' } }, want: [`${P}.additionalProperties: Forbidden: must not be used at the root`] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = new Set(validateVersionSchema(c.schema, P).map((e) => `${e.field}: ${e.detail}`));
      for (const w of c.want) assert.ok(got.has(w), `missing ${w}\n in ${[...got].join('\n    ')}`);
    });
  }
});
