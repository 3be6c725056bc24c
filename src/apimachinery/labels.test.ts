import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from './errors.js';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  labelSelectorAsSelector,
  parseLabelSelector,
  selectorFromSet,
} from './labels.js';

function parseError(s: string): string {
  try {
    parseLabelSelector(s);
  } catch (e) {
    assert.ok(isApiError(e));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    return e.message;
  }
  assert.fail(`expected ${JSON.stringify(s)} to be rejected`);
}

test('equality, set and existence operators match as Kubernetes does', () => {
  const labels = { app: 'web', tier: 'front', env: 'prod' };
  const cases: [string, boolean][] = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db)', false],
    ['app notin (db,cache)', true],
    ['missing notin (a)', true],
    ['app notin (web)', false],
    ['tier', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['app=web,tier=front', true],
    ['app=web,tier=back', false],
    [' app = web , env in ( prod ) ', true],
  ];
  for (const [sel, want] of cases) assert.equal(parseLabelSelector(sel).matches(labels), want, sel);
  assert.equal(parseLabelSelector('app').matches(undefined), false);
  assert.equal(parseLabelSelector('!app').matches(undefined), true);
});

test('empty values and greater/less than', () => {
  assert.equal(parseLabelSelector('a=').matches({ a: '' }), true);
  assert.equal(parseLabelSelector('a in (,x)').matches({ a: '' }), true);
  assert.equal(parseLabelSelector('a in ()').matches({ a: '' }), true);
  assert.equal(parseLabelSelector('n>3').matches({ n: '4' }), true);
  assert.equal(parseLabelSelector('n<3').matches({ n: '4' }), false);
  assert.equal(parseLabelSelector('n>3').matches({ n: 'x' }), false);
});

test('the parsed selector prints sorted by key', () => {
  assert.equal(parseLabelSelector('z=1,a in (c,b),!m,k').toString(), 'a in (b,c),k,!m,z=1');
  assert.equal(parseLabelSelector('').empty, true);
});

test('syntax errors carry the parser messages', () => {
  assert.equal(parseError('a=b c'), "found 'c', expected: ',' or 'end of string'");
  assert.equal(parseError('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  assert.equal(parseError('a=b,'), "found '', expected: identifier after ','");
  assert.equal(parseError('=b'), "found '=', expected: !, identifier, or 'end of string'");
  assert.equal(parseError('a in b'), "unable to parse requirement: found 'b' expected: '('");
  assert.equal(parseError('a in (b'), "unable to parse requirement: found '', expected: ',' or ')'");
  assert.equal(parseError('a (b)'), "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt");
  assert.equal(parseError('a=('), "unable to parse requirement: found '(', expected: identifier");
  assert.equal(parseError('!'), "unable to parse requirement: found '', expected: identifier");
});

test('keys and values are validated', () => {
  assert.match(parseError('a/b/c=d'), /^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a qualified name must consist of/);
  assert.match(parseError('-a=b'), /^unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of alphanumeric/);
  assert.match(parseError('a=-b'), /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "-b": a valid label must be an empty string/);
  assert.match(parseError('a>x'), /values\[0\]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer/);
});

test('name rules', () => {
  assert.deepEqual(isQualifiedName('example.com/my-name'), []);
  assert.deepEqual(isQualifiedName('/x'), ['prefix part must be non-empty']);
  assert.equal(isQualifiedName('x'.repeat(64))[0], 'name part must be no more than 63 characters');
  assert.deepEqual(isValidLabelValue(''), []);
  assert.equal(isValidLabelValue('a'.repeat(64))[0], 'must be no more than 63 characters');
  assert.deepEqual(isDNS1123Subdomain('a.b-c'), []);
  assert.match(isDNS1123Subdomain('A')[0], /^a lowercase RFC 1123 subdomain must consist of .* \(e\.g\. 'example\.com', regex used/);
  assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
  assert.ok(isQualifiedName('-')[0].includes("(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is"));
});

test('the object form: matchLabels and matchExpressions', () => {
  const sel = labelSelectorAsSelector({
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['front', 'back'] },
      { key: 'legacy', operator: 'DoesNotExist' },
    ],
  });
  assert.equal(sel.matches({ app: 'web', tier: 'front' }), true);
  assert.equal(sel.matches({ app: 'web', tier: 'front', legacy: 'y' }), false);
  assert.equal(sel.matches({ app: 'db', tier: 'front' }), false);
  assert.equal(labelSelectorAsSelector({}).matches({}), true);
  assert.equal(labelSelectorAsSelector(undefined).matches({}), false);
  assert.equal(selectorFromSet({ a: 'b' }).matches({ a: 'b', c: 'd' }), true);
  assert.throws(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] }), {
    message: '"Equals" is not a valid label selector operator',
  });
  assert.throws(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), {
    message: "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
  });
});
