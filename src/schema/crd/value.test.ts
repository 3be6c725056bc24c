import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { validateCustomResourceValue } from './index.js';

function spec(props: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps {
  return { type: 'object', properties: { spec: { type: 'object', properties: props, ...extra } } };
}

function texts(obj: KubeObject, schema: JSONSchemaProps): string[] {
  return validateCustomResourceValue(obj, schema).map((e) => `${e.field}: ${e.detail}`);
}

const cr = (s: Record<string, unknown>): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: s });

describe('validateCustomResourceValue', () => {
  const cases: { name: string; schema: JSONSchemaProps; good: Record<string, unknown>; bad: Record<string, unknown>; want: string[] }[] = [
    {
      name: 'type',
      schema: spec({ replicas: { type: 'integer' } }),
      good: { replicas: 3 },
      bad: { replicas: 'x' },
      want: ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
    },
    {
      name: 'type of a float for an integer',
      schema: spec({ replicas: { type: 'integer' } }),
      good: { replicas: 2 },
      bad: { replicas: 1.5 },
      want: ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'],
    },
    {
      name: 'null when not nullable',
      schema: spec({ a: { type: 'string' } }),
      good: { a: 'x' },
      bad: { a: null },
      want: ['spec.a: Invalid value: "null": spec.a in body must be of type string: "null"'],
    },
    {
      name: 'enum',
      schema: spec({ mode: { type: 'string', enum: ['a', 'b'] } }),
      good: { mode: 'a' },
      bad: { mode: 'x' },
      want: ['spec.mode: Unsupported value: "x": supported values: "a", "b"'],
    },
    {
      name: 'pattern',
      schema: spec({ s: { type: 'string', pattern: '^[a-z]+$' } }),
      good: { s: 'abc' },
      bad: { s: 'ABC' },
      want: [`spec.s: Invalid value: "ABC": spec.s in body should match '^[a-z]+$'`],
    },
    {
      name: 'maximum',
      schema: spec({ n: { type: 'integer', maximum: 10 } }),
      good: { n: 10 },
      bad: { n: 11 },
      want: ['spec.n: Invalid value: 11: spec.n in body should be less than or equal to 10'],
    },
    {
      name: 'exclusive minimum',
      schema: spec({ n: { type: 'number', minimum: 1.5, exclusiveMinimum: true } }),
      good: { n: 1.75 },
      bad: { n: 1.5 },
      want: ['spec.n: Invalid value: 1.5: spec.n in body should be greater than 1.5'],
    },
    {
      name: 'multipleOf',
      schema: spec({ n: { type: 'integer', multipleOf: 2 } }),
      good: { n: 4 },
      bad: { n: 3 },
      want: ['spec.n: Invalid value: 3: spec.n in body should be a multiple of 2'],
    },
    {
      name: 'maxLength',
      schema: spec({ s: { type: 'string', maxLength: 3 } }),
      good: { s: 'äöü' },
      bad: { s: 'abcd' },
      want: ['spec.s: Too long: may not be longer than 3'],
    },
    {
      name: 'minLength',
      schema: spec({ s: { type: 'string', minLength: 2 } }),
      good: { s: 'ab' },
      bad: { s: 'a' },
      want: ['spec.s: Invalid value: "a": spec.s in body should be at least 2 chars long'],
    },
    {
      name: 'maxItems',
      schema: spec({ l: { type: 'array', items: { type: 'string' }, maxItems: 1 } }),
      good: { l: ['a'] },
      bad: { l: ['a', 'b'] },
      want: ['spec.l: Too many: 2: must have at most 1 items'],
    },
    {
      name: 'minItems',
      schema: spec({ l: { type: 'array', items: { type: 'string' }, minItems: 2 } }),
      good: { l: ['a', 'b'] },
      bad: { l: ['a'] },
      want: ['spec.l: Invalid value: 1: spec.l in body should have at least 2 items'],
    },
    {
      name: 'items',
      schema: spec({ l: { type: 'array', items: { type: 'integer' } } }),
      good: { l: [1] },
      bad: { l: [1, 'x'] },
      want: ['spec.l[1]: Invalid value: "string": spec.l[1] in body must be of type integer: "string"'],
    },
    {
      name: 'required',
      schema: spec({ a: { type: 'string' } }, { required: ['a'] }),
      good: { a: 'x' },
      bad: {},
      want: ['spec.a: Required value'],
    },
    {
      name: 'maxProperties',
      schema: spec({}, { additionalProperties: { type: 'string' }, properties: undefined, maxProperties: 1 }),
      good: { a: 'x' },
      bad: { a: 'x', b: 'y' },
      want: ['spec: Too many: 2: must have at most 1 items'],
    },
    {
      name: 'additionalProperties values',
      schema: spec({}, { additionalProperties: { type: 'string' }, properties: undefined }),
      good: { a: 'x' },
      bad: { a: 1 },
      want: ['spec.a: Invalid value: "integer": spec.a in body must be of type string: "integer"'],
    },
    {
      name: 'int-or-string',
      schema: spec({ port: { 'x-kubernetes-int-or-string': true } }),
      good: { port: 'http' },
      bad: { port: true },
      want: ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
    },
    {
      name: 'format date',
      schema: spec({ d: { type: 'string', format: 'date' } }),
      good: { d: '2024-02-29' },
      bad: { d: '2023-02-29' },
      want: ['spec.d: Invalid value: "2023-02-29": spec.d in body must be of type date: "2023-02-29"'],
    },
    {
      name: 'format int32 is not checked',
      schema: spec({ n: { type: 'integer', format: 'int32' } }),
      good: { n: 2 ** 40 },
      bad: { n: 'x' },
      want: ['spec.n: Invalid value: "string": spec.n in body must be of type integer: "string"'],
    },
    {
      name: 'anyOf',
      schema: spec({ n: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 1 }] } }),
      good: { n: 0 },
      bad: { n: 5 },
      want: [
        '<nil>: Invalid value: "": "spec.n" must validate at least one schema (anyOf)',
        'spec.n: Invalid value: 5: spec.n in body should be greater than or equal to 10',
      ],
    },
    {
      name: 'oneOf',
      schema: spec({ n: { type: 'integer', oneOf: [{ minimum: 1 }, { minimum: 2 }] } }),
      good: { n: 1 },
      bad: { n: 3 },
      want: ['<nil>: Invalid value: "": "spec.n" must validate one and only one schema (oneOf). Found 2 valid alternatives'],
    },
    {
      name: 'not',
      schema: spec({ s: { type: 'string', not: { enum: ['x'] } } }),
      good: { s: 'y' },
      bad: { s: 'x' },
      want: ['<nil>: Invalid value: "": "spec.s" must not validate the schema (not)'],
    },
    {
      name: 'list-type set',
      schema: spec({ l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } }),
      good: { l: ['a', 'b'] },
      bad: { l: ['a', 'b', 'a', 'a'] },
      want: ['spec.l[2]: Duplicate value: "a"'],
    },
    {
      name: 'list-type map',
      schema: spec({
        l: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
      }),
      good: { l: [{ name: 'a' }, { name: 'b' }] },
      bad: { l: [{ name: 'a' }, { name: 'a' }] },
      want: ['spec.l[1]: Duplicate value: map[string]interface {}{"name":"a"}'],
    },
    {
      name: 'embedded resource',
      schema: spec({ t: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
      good: { t: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } } },
      bad: { t: { kind: 'Pod', metadata: { name: 'a/b' } } },
      want: ['spec.t.apiVersion: Required value: must not be empty', "spec.t.metadata.name: Invalid value: \"a/b\": may not contain '/'"],
    },
  ];
  for (const c of cases) {
    it(`${c.name}: accepts the good value`, () => assert.deepEqual(texts(cr(c.good), c.schema), []));
    it(`${c.name}: words the bad value as Kubernetes`, () => assert.deepEqual(texts(cr(c.bad), c.schema), c.want));
  }

  it('checks the root metadata name against the schema', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 3 } } } } };
    assert.deepEqual(texts({ metadata: { name: 'abcd' } }, schema), ['metadata.name: Too long: may not be longer than 3']);
  });

  it('treats __proto__ as an ordinary property', () => {
    const props = JSON.parse('{"__proto__": {"type": "integer"}}') as Record<string, JSONSchemaProps>;
    const obj = JSON.parse('{"spec": {"__proto__": "x"}}') as KubeObject;
    assert.deepEqual(texts(obj, spec(props)), ['spec.__proto__: Invalid value: "string": spec.__proto__ in body must be of type integer: "string"']);
  });

  it('handles deep schemas and huge enums', () => {
    let s: JSONSchemaProps = { type: 'string' };
    let v: unknown = 'x';
    for (let i = 0; i < 100; i++) {
      s = { type: 'object', properties: { a: s } };
      v = { a: v };
    }
    assert.deepEqual(validateCustomResourceValue({ spec: v }, { type: 'object', properties: { spec: s } }), []);
    const values = Array.from({ length: 50_000 }, (_, i) => `v${i}`);
    assert.deepEqual(texts(cr({ e: 'v49999' }), spec({ e: { type: 'string', enum: values } })), []);
  });

  it('hostile patterns on long values answer in bounded time', { timeout: 20_000 }, () => {
    // Each of these took seconds to minutes on a backtracking engine or on an automaton
    // stepping every state per character; a value within the request size limit.
    const long = 'a'.repeat(1_000_000);
    const cases: [string, string][] = [
      ['^(a+)+$', `${long}!`],
      ['a{1000}b', long],
      ['[a-z]{999}[0-9]', long],
      ['(?:a|b)*a(?:a|b){40}$', `${'ab'.repeat(500_000)}c`],
    ];
    for (const [pattern, value] of cases) {
      const started = performance.now();
      const got = texts(cr({ s: value }), spec({ s: { type: 'string', pattern } }));
      const ms = performance.now() - started;
      assert.equal(got.length, 1, pattern);
      assert.ok(got[0].includes(`should match '${pattern}'`), got[0].slice(-200));
      assert.ok(ms < 1000, `${pattern}: ${ms.toFixed(0)} ms`);
    }
    // A long value the pattern's program can run over in bounded time is matched.
    assert.deepEqual(texts(cr({ s: 'a'.repeat(100_000) }), spec({ s: { type: 'string', pattern: '^a+$' } })), []);
    const tooLong = texts(cr({ s: long }), spec({ s: { type: 'string', pattern: '^(a+)+$' } }));
    assert.match(tooLong[0], /should match '\^\(a\+\)\+\$', but is too long to be matched against it in bounded time$/);
  });

  it('formats answer in bounded time on long values', () => {
    for (const format of ['isbn', 'isbn10', 'isbn13', 'email', 'uri', 'hostname', 'byte', 'creditcard']) {
      const started = performance.now();
      const got = texts(cr({ s: ' a'.repeat(1_000_000) }), spec({ s: { type: 'string', format } }));
      const ms = performance.now() - started;
      assert.equal(got.length, 1, format);
      assert.ok(ms < 300, `${format}: ${ms.toFixed(0)} ms`);
    }
  });

  it('refuses a pattern Go cannot compile', () => {
    const got = texts(cr({ s: 'a' }), spec({ s: { type: 'string', pattern: '(?=a)' } }));
    assert.deepEqual(got, ["spec.s: Invalid value: \"a\": spec.s in body should match '(?=a), but pattern is invalid: error parsing regexp: invalid or unsupported Perl syntax: `(?=`'"]);
  });
});
