import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { validateVersionSchema } from './index.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';

function texts(schema: JSONSchemaProps): string[] {
  return validateVersionSchema(schema, P).map((e) => `${e.field}: ${e.detail}`);
}

function root(props: Record<string, JSONSchemaProps>): JSONSchemaProps {
  return { type: 'object', properties: props };
}

describe('validateVersionSchema', () => {
  const cases: { name: string; good: JSONSchemaProps; bad: JSONSchemaProps; want: string[] }[] = [
    {
      name: 'type of a field',
      good: root({ foo: { type: 'string' } }),
      bad: root({ foo: {} }),
      want: [`${P}.properties[foo].type: Required value: must not be empty for specified object fields`],
    },
    {
      name: 'type of items',
      good: root({ l: { type: 'array', items: { type: 'string' } } }),
      bad: root({ l: { type: 'array', items: {} } }),
      want: [`${P}.properties[l].items.type: Required value: must not be empty for specified array items`],
    },
    {
      name: 'items of an array',
      good: root({ l: { type: 'array', items: { type: 'string' } } }),
      bad: root({ l: { type: 'array' } }),
      want: [`${P}.properties[l].items: Required value: must be specified`],
    },
    {
      name: 'root type',
      good: { type: 'object' },
      bad: { type: 'string' },
      want: [`${P}.type: Invalid value: "string": must be object at the root`],
    },
    {
      name: 'additionalProperties with properties',
      good: root({ m: { type: 'object', additionalProperties: { type: 'string' } } }),
      bad: root({ m: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } } }),
      want: [`${P}.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
    },
    {
      name: 'types inside combinators',
      good: root({ a: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] } }),
      bad: root({ a: { type: 'string', anyOf: [{ type: 'string' }] } }),
      want: [`${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`],
    },
    {
      name: 'int-or-string anyOf pattern',
      good: root({ a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }),
      bad: root({ a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'string' }, { type: 'integer' }] } }),
      want: [`${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`, `${P}.properties[a].anyOf[1].type: Forbidden: must be empty to be structural`],
    },
    {
      name: 'completeness',
      good: { ...root({ a: { type: 'object', properties: { b: { type: 'string' } } } }), allOf: [{ properties: { a: { properties: { b: { minLength: 1 } } } } }] },
      bad: { ...root({ a: { type: 'object' } }), allOf: [{ properties: { a: { properties: { b: { minLength: 1 } } } } }] },
      want: [`${P}.properties[a].properties[b]: Required value: because it is defined in ${P}.allOf[0].properties[a].properties[b]`],
    },
    {
      name: '$ref',
      good: root({}),
      bad: { type: 'object', $ref: '#/x' } as JSONSchemaProps,
      want: [`${P}.$ref: Forbidden: $ref is not supported`],
    },
    {
      name: 'metadata restrictions',
      good: root({ metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } }),
      bad: root({ metadata: { type: 'object', properties: { labels: { type: 'object' } } } }),
      want: [`${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
    },
    {
      name: 'defaults in top-level metadata',
      good: root({ spec: { type: 'object', default: {} } }),
      bad: root({ metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } } }),
      want: [`${P}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`],
    },
    {
      name: 'embedded resource',
      good: root({ t: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
      bad: root({ t: { type: 'object', 'x-kubernetes-embedded-resource': true } }),
      want: [`${P}.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`],
    },
    {
      name: 'list-type map keys',
      good: root({
        l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', required: ['k'], properties: { k: { type: 'string' } } } },
      }),
      bad: root({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'string' } } } } }),
      want: [`${P}.properties[l].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`],
    },
    {
      name: 'list-type set of objects',
      good: root({ l: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'atomic' } } }),
      bad: root({ l: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object' } } }),
      want: [`${P}.properties[l].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`],
    },
    {
      name: 'map-type on a non-object',
      good: root({ m: { type: 'object', 'x-kubernetes-map-type': 'atomic' } }),
      bad: root({ m: { type: 'string', 'x-kubernetes-map-type': 'atomic' } }),
      want: [`${P}.properties[m].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`],
    },
    {
      name: 'default of the wrong type',
      good: root({ n: { type: 'integer', default: 1 } }),
      bad: root({ n: { type: 'integer', default: 'x' } }),
      want: [`${P}.properties[n].default: Invalid value: "string":  in body must be of type integer: "string"`],
    },
    {
      name: 'default with unknown fields',
      good: root({ o: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x' } } }),
      bad: root({ o: { type: 'object', properties: { a: { type: 'string' } }, default: { b: 'x' } } }),
      want: [`${P}.properties[o].default: Invalid value: map[string]interface {}{"b":"x"}: must not have unknown fields`],
    },
    {
      name: 'invalid pattern',
      good: root({ s: { type: 'string', pattern: '^a(b|c)$' } }),
      bad: root({ s: { type: 'string', pattern: '(a' } }),
      want: [`${P}.properties[s].pattern: Invalid value: "(a": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): \`(a\``],
    },
    {
      name: 'nullable root',
      good: root({}),
      bad: { type: 'object', nullable: true },
      want: [`${P}.nullable: Forbidden: nullable cannot be true at the root`],
    },
  ];
  for (const c of cases) {
    it(`${c.name}: accepts the good schema`, () => assert.deepEqual(texts(c.good), []));
    it(`${c.name}: words the bad schema as Kubernetes`, () => assert.deepEqual(texts(c.bad), c.want));
  }

  it('takes a 100-deep schema and __proto__ property names', () => {
    let s: JSONSchemaProps = { type: 'string' };
    for (let i = 0; i < 100; i++) s = { type: 'object', properties: { a: s } };
    assert.deepEqual(texts(root({ a: s })), []);
    const props = JSON.parse('{"__proto__": {}}') as Record<string, JSONSchemaProps>;
    assert.deepEqual(texts(root(props)), [`${P}.properties[__proto__].type: Required value: must not be empty for specified object fields`]);
  });
});
