import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps, ValidationRule } from '../../apimachinery/jsonschema.js';
import { setFlavor } from '../../naming/index.js';
import { compileValidations } from './validation.js';

const ROOT = 'spec.validation.openAPIV3Schema';
const RULES = 'x-orch-validations';

/** A root schema whose `spec` is `spec`. */
function root(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: 'object', properties: { spec } };
}

function withRules(schema: JSONSchemaProps, ...rules: (string | ValidationRule)[]): JSONSchemaProps {
  return { ...schema, 'x-kubernetes-validations': rules.map((r) => (typeof r === 'string' ? { rule: r } : r)) };
}

const SPEC_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 64 },
    n: { type: 'integer' },
    ratio: { type: 'number' },
    on: { type: 'boolean' },
    tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 } },
    nums: { type: 'array', maxItems: 10, items: { type: 'integer' } },
    labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 20 } },
    port: { 'x-kubernetes-int-or-string': true },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    'x-y': { type: 'string', maxLength: 10 },
    namespace: { type: 'string', maxLength: 10 },
  },
};

function errorsOf(rule: string | ValidationRule, spec: JSONSchemaProps = SPEC_SCHEMA): string[] {
  return compileValidations(root(withRules(spec, rule)), ROOT).errors.map((e) => `${e.field}: ${e.detail}`);
}

test('compile errors carry the rule path and cel-go wording', () => {
  const at = `${ROOT}.properties[spec].${RULES}[0]`;
  const cases: { rule: string | ValidationRule; want: string }[] = [
    {
      rule: 'self.missing > 0',
      want: `${at}.rule: Invalid value: apiextensions.ValidationRule{Rule:"self.missing > 0", Message:"", MessageExpression:""}: compilation failed: ERROR: <input>:1:5: undefined field 'missing'\n | self.missing > 0\n | ....^`,
    },
    {
      rule: 'nope > 0',
      want: `${at}.rule: Invalid value: apiextensions.ValidationRule{Rule:"nope > 0", Message:"", MessageExpression:""}: compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope > 0\n | ^`,
    },
    { rule: { rule: 'self.n', message: 'm' }, want: `${at}.rule: Invalid value: apiextensions.ValidationRule{Rule:"self.n", Message:"m", MessageExpression:""}: cel expression must evaluate to a bool` },
    { rule: 'self.n == "a"', want: `found no matching overload for '_==_' applied to '(int, string)'` },
    { rule: 'self.name.contains(1)', want: `found no matching overload for 'contains' applied to 'string.(int)'` },
    { rule: 'self.n.foo', want: `type 'int' does not support field selection` },
    { rule: 'self.name.frobnicate()', want: `undeclared reference to 'frobnicate' (in container '')` },
    { rule: 'self.n >', want: 'compilation failed: ERROR: <input>:1:' },
    { rule: 'self.name.format([])', want: `undeclared reference to 'format'` },
    { rule: "quantity('1Gi') > 0", want: `undeclared reference to 'quantity'` },
    { rule: '[1, "a"].size() > 0', want: `expected type 'int' but found 'string'` },
    { rule: { rule: '' }, want: `${at}.rule: Required value: rule is not specified` },
    { rule: { rule: 'true', message: '  ' }, want: `${at}.message: Invalid value: "  ": message must be non-empty if specified` },
    { rule: { rule: 'true', message: 'a\nb' }, want: `${at}.message: Invalid value: "a\\nb": message must not contain line breaks` },
    { rule: { rule: 'true &&\ntrue' }, want: `${at}.message: Required value: message must be specified if rule contains line breaks` },
    { rule: { rule: 'true', messageExpression: ' ' }, want: `${at}.messageExpression: Required value: messageExpression must be non-empty if specified` },
    { rule: { rule: 'true', messageExpression: 'self.n' }, want: `${at}.messageExpression: Invalid value: apiextensions.ValidationRule{Rule:"true", Message:"", MessageExpression:"self.n"}: messageExpression must evaluate to a string` },
    { rule: { rule: 'true', messageExpression: 'self.zz' }, want: `messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'zz'` },
  ];
  for (const c of cases) {
    const errs = errorsOf(c.rule);
    assert.equal(errs.length, 1, `${JSON.stringify(c.rule)}: ${errs.join('; ')}`);
    assert.ok(errs[0].includes(c.want), `${JSON.stringify(c.rule)}:\n got ${errs[0]}\nwant ${c.want}`);
  }
});

test('valid rules compile without errors', () => {
  const rules = [
    'self.n > 0 && self.name != ""',
    'has(self.ratio) ? self.ratio > 0.5 : true',
    'self.tags.all(t, t.size() < 10)',
    'self.labels.exists(k, self.labels[k] == "x")',
    'self.x__dash__y == "a"',
    'self.__namespace__ == "a"',
    'self.port == 80 || self.port == "http"',
    'self.free.anything.goes > 1',
    'self.nums.map(x, x * 2).filter(x, x > 2).size() >= 0',
    'self.tags.exists_one(t, t == "a")',
  ];
  for (const r of rules) assert.deepEqual(errorsOf(r), [], r);
});

test('cost: refusals with Kubernetes messages, bounded schemas accepted', () => {
  const unboundedList: JSONSchemaProps = { type: 'array', items: { type: 'string' } };
  const errs = errorsOf('self.all(x, self.all(y, x == y))', unboundedList);
  assert.deepEqual(errs, [
    `${ROOT}.properties[spec].${RULES}[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    `${ROOT}.properties[spec].${RULES}[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
    `${ROOT}: Forbidden: ${RULES} estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
  ]);
  const bounded: JSONSchemaProps = { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 64 } };
  assert.deepEqual(errorsOf('self.all(x, self.all(y, x == y))', bounded), []);
  // A rule on items of an unbounded list runs once per item: its cost is multiplied.
  const items = root({ type: 'array', items: withRules({ type: 'string' }, "self.matches('^a.*b$')") });
  assert.ok(compileValidations(items, ROOT).errors.some((e) => e.detail.includes('estimated rule cost exceeds budget')));
  const boundedItems = root({ type: 'array', maxItems: 10, items: withRules({ type: 'string', maxLength: 100 }, "self.matches('^a.*b$')") });
  assert.deepEqual(compileValidations(boundedItems, ROOT).errors, []);
});

/** Evaluates one rule on `spec` (and `oldSpec` on update); returns the error lines. */
function run(rule: string | ValidationRule, spec: unknown, oldSpec?: unknown, schema: JSONSchemaProps = SPEC_SCHEMA): string[] {
  const c = compileValidations(root(withRules(schema, rule)), ROOT);
  assert.deepEqual(c.errors, [], JSON.stringify(rule));
  return c.validator.validate({ spec }, oldSpec === undefined ? undefined : { spec: oldSpec }).map((e) => `${e.field}: ${e.detail}`);
}

const OBJ = {
  name: 'Hello World',
  n: 3,
  ratio: 0.5,
  tags: ['b', 'a', 'c'],
  nums: [1, 2, 3, 2],
  labels: { a: 'x', b: 'y' },
  port: 'http',
  free: { deep: { k: 1 } },
  'x-y': 'dash',
};

test('library functions', () => {
  const rules = [
    // macros and standard functions
    'has(self.name) && !has(self.on)',
    'self.tags.all(t, t.size() == 1)',
    'self.tags.exists(t, t == "a")',
    'self.tags.exists_one(t, t == "a")',
    'self.nums.map(x, x * 10) == [10, 20, 30, 20]',
    'self.nums.filter(x, x > 1) == [2, 3, 2]',
    'self.name.startsWith("Hello") && self.name.endsWith("World") && self.name.contains("o W")',
    'self.name.matches("^H.*d$")',
    'size(self.tags) == 3 && self.labels.size() == 2 && "a" in self.labels && "b" in self.tags',
    'int("12") == 12 && string(self.n) == "3" && double(self.n) == 3.0',
    // lists
    '!self.tags.isSorted() && [1, 2, 2].isSorted() && ["a", "b"].isSorted()',
    'self.nums.sum() == 8 && [1.5, 2.5].sum() == 4.0',
    'self.nums.min() == 1 && self.nums.max() == 3',
    'self.nums.indexOf(2) == 1 && self.nums.lastIndexOf(2) == 3 && self.nums.indexOf(9) == -1',
    // regex
    '"abc 123".find("[0-9]+") == "123" && "abc".find("x") == ""',
    '"123 abc 456".findAll("[0-9]+") == ["123", "456"] && "123 abc 456".findAll("[0-9]+", 1) == ["123"]',
    // URLs
    'isURL("https://example.com/p") && isURL("/abs") && !isURL("../rel")',
    'url("https://user:pass@example.com:80/path?k=a&k=b").getScheme() == "https"',
    'url("https://example.com:80/").getHost() == "example.com:80" && url("https://[::1]:80/").getHostname() == "::1"',
    'url("https://example.com:80/").getPort() == "80" && url("https://example.com/").getPort() == ""',
    'url("https://example.com/with space/").getEscapedPath() == "/with%20space/"',
    'url("https://example.com/p?k=a&k=b").getQuery() == {"k": ["a", "b"]}',
    // string extensions
    'self.name.charAt(1) == "e" && self.name.indexOf("o") == 4 && self.name.lastIndexOf("o") == 7',
    'self.name.lowerAscii() == "hello world" && self.name.upperAscii() == "HELLO WORLD"',
    'self.name.replace("o", "0") == "Hell0 W0rld" && self.name.split(" ") == ["Hello", "World"]',
    'self.name.substring(6) == "World" && "  x ".trim() == "x" && ["a", "b"].join("-") == "a-b"',
    // typing of schema nodes
    'self.port == "http" && self.free.deep.k == 1 && self.x__dash__y == "dash" && self.ratio == 0.5',
  ];
  for (const r of rules) assert.deepEqual(run(r, OBJ), [], r);
});

test('failed rules: messages, paths and value types as Kubernetes', () => {
  assert.deepEqual(run('self.n > 5', OBJ), ['spec: Invalid value: "object": failed rule: self.n > 5']);
  assert.deepEqual(run({ rule: 'self.n > 5', message: ' too small ' }, OBJ), ['spec: Invalid value: "object": too small']);
  const items: JSONSchemaProps = { type: 'array', maxItems: 5, items: withRules({ type: 'integer' }, 'self < 3') };
  assert.deepEqual(run('true', [1, 5, 2, 7], undefined, items), ['spec[1]: Invalid value: "integer": failed rule: self < 3', 'spec[3]: Invalid value: "integer": failed rule: self < 3']);
  const map: JSONSchemaProps = { type: 'object', additionalProperties: withRules({ type: 'string', maxLength: 5 }, 'self != "bad"') };
  assert.deepEqual(run('true', { ok: 'x', __proto__x: 'bad' }, undefined, map), ['spec[__proto__x]: Invalid value: "string": failed rule: self != "bad"']);
  const proto = JSON.parse('{"__proto__": "bad"}') as unknown;
  assert.deepEqual(run('true', proto, undefined, map), ['spec[__proto__]: Invalid value: "string": failed rule: self != "bad"']);
  // Runtime errors name the rule.
  assert.deepEqual(run('self.free.nothing == 1', OBJ), ['spec: Invalid value: "object": no such key: nothing evaluating rule: self.free.nothing == 1']);
  assert.deepEqual(run('[].min() == 1', OBJ), ['spec: Invalid value: "object": min(list) argument must not be empty evaluating rule: [].min() == 1']);
});

test('messageExpression: its string, else the message or rule text', () => {
  const cases: { rule: ValidationRule; want: string }[] = [
    { rule: { rule: 'self.n > 5', messageExpression: '"n is " + string(self.n)' }, want: 'n is 3' },
    { rule: { rule: 'self.n > 5', messageExpression: '"  "', message: 'fallback' }, want: 'fallback' },
    { rule: { rule: 'self.n > 5', messageExpression: '"  "' }, want: 'failed rule: self.n > 5' },
    { rule: { rule: 'self.n > 5', messageExpression: 'self.free.missing', message: 'm' }, want: 'm' },
    { rule: { rule: 'self.n > 5', messageExpression: '"a\\nb"', message: 'm' }, want: 'm' },
  ];
  for (const c of cases) assert.deepEqual(run(c.rule, OBJ), [`spec: Invalid value: "object": ${c.want}`], JSON.stringify(c.rule));
});

test('transition rules: run on update only, correlated through maps and map lists', () => {
  const rule = { rule: 'self.n >= oldSelf.n', message: 'n may not decrease' };
  assert.deepEqual(run(rule, { n: 1 }), []);
  assert.deepEqual(run(rule, { n: 1 }, { n: 2 }), ['spec: Invalid value: "object": n may not decrease']);
  assert.deepEqual(run(rule, { n: 3 }, { n: 2 }), []);
  // A map-list correlates items by key; a new item has no old self.
  const list: JSONSchemaProps = {
    type: 'array',
    maxItems: 10,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: withRules({ type: 'object', properties: { name: { type: 'string', maxLength: 10 }, v: { type: 'integer' } } }, { rule: 'self.v >= oldSelf.v', message: 'v may not decrease' }),
  };
  assert.deepEqual(run('true', [{ name: 'b', v: 1 }, { name: 'a', v: 5 }, { name: 'new', v: 0 }], [{ name: 'a', v: 4 }, { name: 'b', v: 2 }], list), [
    'spec[0]: Invalid value: "object": v may not decrease',
  ]);
  // Items of atomic and set lists cannot be correlated: refused at creation.
  const atomic: JSONSchemaProps = { ...list, 'x-kubernetes-list-type': 'atomic' };
  assert.deepEqual(errorsOf('true', atomic).slice(0, 1), [
    `${ROOT}.properties[spec].items.${RULES}[0].rule: Invalid value: "self.v >= oldSelf.v": oldSelf cannot be used on the uncorrelatable portion of the schema within ${ROOT}.properties[spec]`,
  ]);
  // Maps correlate by key.
  const map: JSONSchemaProps = { type: 'object', maxProperties: 5, additionalProperties: withRules({ type: 'integer' }, 'self >= oldSelf') };
  assert.deepEqual(run('true', { a: 1, b: 9 }, { a: 2, b: 3 }, map), ['spec[a]: Invalid value: "integer": failed rule: self >= oldSelf']);
});

test('reason and fieldPath are not part of the 1.27 API: ignored', () => {
  assert.deepEqual(run({ rule: 'self.n > 5', reason: 'FieldValueForbidden', fieldPath: '.n' }, OBJ), ['spec: Invalid value: "object": failed rule: self.n > 5']);
});

test('hostile rules are refused or bounded', () => {
  const deep = `${'('.repeat(300)}true${')'.repeat(300)}`;
  assert.ok(errorsOf(deep)[0].includes('expression recursion limit exceeded: 250'));
  const huge = `self.name == "${'a'.repeat(100_001)}"`;
  assert.ok(errorsOf(huge)[0].includes('expression code point size exceeds limit'));
  // A regex bomb for backtracking engines: RE2 answers in linear time.
  const started = Date.now();
  const bomb: JSONSchemaProps = { type: 'object', properties: { s: { type: 'string', maxLength: 100_000 } } };
  assert.deepEqual(run("!self.s.matches('^(a+)+$')", { s: `${'a'.repeat(50_000)}!` }, undefined, bomb), []);
  assert.deepEqual(run("!self.s.matches('(a|aa)*c')", { s: 'a'.repeat(50_000) }, undefined, bomb), []);
  // A long text that matches only at its end is searched in linear time.
  assert.deepEqual(run("self.s.find('a{3}b') == 'aaab'", { s: `${'a'.repeat(99_000)}aaab` }, undefined, bomb), []);
  assert.ok(Date.now() - started < 10_000, 'hostile rules took too long');
  // Expanding lists quadratically is refused by the estimate.
  const list: JSONSchemaProps = { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 1000 } };
  assert.ok(errorsOf('self.map(x, self.map(y, x + y)).size() > 0', list)[0].includes('estimated rule cost exceeds budget'));
});

test('rule paths use the running flavor\'s extension name', () => {
  setFlavor('kubernetes');
  try {
    assert.ok(errorsOf('self.zz')[0].startsWith(`${ROOT}.properties[spec].x-kubernetes-validations[0].rule: `));
  } finally {
    setFlavor('orch');
  }
});

test('rules at the root see apiVersion, kind and metadata.name', () => {
  const c = compileValidations(withRules({ type: 'object', properties: {} }, 'self.metadata.name.startsWith("x")'), ROOT);
  assert.deepEqual(c.errors, []);
  assert.deepEqual(c.validator.validate({ apiVersion: 'a/v1', kind: 'K', metadata: { name: 'yz' } }, undefined), ['Invalid value: "object": failed rule: self.metadata.name.startsWith("x")'].map((d) => ({ type: 'FieldValueInvalid', field: '', detail: d })));
});
