// Rules written to stall the server: string functions whose work outgrows their input, and
// regular expressions supplied by the same user as the text. Each must answer in bounded time
// (or be refused when the definition is written) with Kubernetes' messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps, ValidationRule } from '../../apimachinery/jsonschema.js';
import { compileValidations } from './validation.js';

const ROOT = 'spec.validation.openAPIV3Schema';
const RULES = 'x-orch-validations';
const CANCELLED = "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ";

const FIELDS: Record<string, JSONSchemaProps> = {
  s: { type: 'string' },
  p: { type: 'string', maxLength: 64 },
  t: { type: 'string', maxLength: 100_000 },
};

function schema(rules: (string | ValidationRule)[], fields: Record<string, JSONSchemaProps> = FIELDS): JSONSchemaProps {
  return {
    type: 'object',
    properties: { spec: { type: 'object', properties: fields, 'x-kubernetes-validations': rules.map((r) => (typeof r === 'string' ? { rule: r } : r)) } },
  };
}

/** Evaluates the rules on `spec`; the error lines and how long validation took. */
function timed(rules: (string | ValidationRule)[], spec: Record<string, unknown>, fields?: Record<string, JSONSchemaProps>): { errors: string[]; ms: number } {
  const c = compileValidations(schema(rules, fields), ROOT);
  assert.deepEqual(c.errors, [], JSON.stringify(rules));
  const started = performance.now();
  const errors = c.validator.validate({ spec }, undefined).map((e) => `${e.field}: ${e.detail}`);
  return { errors, ms: performance.now() - started };
}

function compileErrors(rule: string, fields?: Record<string, JSONSchemaProps>): string[] {
  return compileValidations(schema([rule], fields), ROOT).errors.map((e) => `${e.field}: ${e.detail}`);
}

const A_MILLION = 'a'.repeat(1_000_000);

describe('hostile CEL rules', () => {
  it('replace over a large string runs in linear time', { timeout: 20_000 }, () => {
    // The library's replace rebuilt the string per occurrence: minutes on a megabyte.
    const { errors, ms } = timed(['self.s.replace("a", "bb").size() == 2000000', 'self.s.replace("a", "b", 3).startsWith("bbba")'], { s: A_MILLION });
    assert.deepEqual(errors, []);
    assert.ok(ms < 500, `${ms.toFixed(0)} ms`);
  });

  it('replace that would build an enormous string is cancelled before building it', { timeout: 20_000 }, () => {
    const rule = 'self.s.replace("a", self.t).size() > 0';
    const { errors, ms } = timed([rule], { s: 'a'.repeat(100_000), t: 'b'.repeat(100_000) });
    assert.deepEqual(errors, [`spec: Invalid value: "object": ${CANCELLED}${rule}`]);
    assert.ok(ms < 500, `${ms.toFixed(0)} ms`);
  });

  it('matches with a user-supplied catastrophic pattern on a long string is cancelled at once', { timeout: 20_000 }, () => {
    const rule = 'self.s.matches(self.p)';
    for (const p of ['(a+)+$', '[a-z]{999}[0-9]', '(?:a|b)*a(?:a|b){40}$', '(x+x+)+y']) {
      const { errors, ms } = timed([rule], { s: `${A_MILLION}!`, p });
      assert.deepEqual(errors, [`spec: Invalid value: "object": ${CANCELLED}${rule}`], p);
      assert.ok(ms < 200, `${p}: ${ms.toFixed(0)} ms`);
    }
    // The same pattern on a text its program can run over in bounded time is matched.
    assert.deepEqual(timed([rule], { s: 'a'.repeat(10_000), p: '^(a+)+$' }).errors, []);
    assert.deepEqual(timed([`!${rule}`], { s: `${'a'.repeat(10_000)}!`, p: '^(a+)+$' }).errors, []);
  });

  it('find and findAll with a user-supplied pattern are bounded the same way', { timeout: 20_000 }, () => {
    for (const rule of ['self.s.find(self.p) == ""', 'self.s.findAll(self.p).size() == 0', 'self.s.findAll(self.p, 5).size() == 0']) {
      const { errors, ms } = timed([rule], { s: `${A_MILLION}!`, p: 'a(?:.*z)?' });
      assert.deepEqual(errors, [`spec: Invalid value: "object": ${CANCELLED}${rule}`]);
      assert.ok(ms < 200, `${rule}: ${ms.toFixed(0)} ms`);
    }
    // Go's leftmost-first matches and its rule for empty matches.
    assert.deepEqual(timed(['self.s.findAll(self.p) == ["", "aaa", ""]', 'self.s.find("a|aa") == "a"'], { s: 'baaac', p: 'a*' }).errors, []);
  });

  it('substring searches run in linear time whatever the pattern', { timeout: 60_000 }, () => {
    // The engine's own indexOf takes text times pattern here: minutes for these sizes.
    const half = 'a'.repeat(250_000);
    const fields: Record<string, JSONSchemaProps> = { s: { type: 'string' }, t: { type: 'string', maxLength: 600_000 } };
    const rules = [
      'self.s.indexOf(self.t) == -1',
      'self.s.lastIndexOf(self.t) == -1',
      'self.s.replace(self.t, "x") == self.s',
      'self.s.split(self.t).size() == 1',
      '(self.s + self.t).indexOf(self.t) == 1000000',
      '(self.t + self.s).lastIndexOf(self.t) == 0',
    ];
    for (const rule of rules) {
      const { errors, ms } = timed([rule], { s: A_MILLION, t: `${half}b${half}` }, fields);
      assert.deepEqual(errors, [], rule);
      assert.ok(ms < 500, `${rule}: ${ms.toFixed(0)} ms`);
    }
    // contains is charged the text's traversal times the substring's, as cel-go does: refused here.
    assert.ok(compileErrors('self.s.contains(self.t)', fields)[0].includes('estimated rule cost exceeds budget by factor of'));
  });

  it('a cancelled call cancels the whole evaluation, even where an operator would absorb its error', () => {
    const rule = 'self.s.matches(self.p) || true';
    assert.deepEqual(timed([rule], { s: `${A_MILLION}!`, p: '(a+)+$' }).errors, [`spec: Invalid value: "object": ${CANCELLED}${rule}`]);
  });

  it('a messageExpression cancelled by the per-call limit stops validation with Kubernetes\' message', () => {
    const rule = { rule: 'false', messageExpression: 'self.s.replace("a", self.t)' };
    const { errors } = timed([rule, 'false'], { s: 'a'.repeat(100_000), t: 'b'.repeat(100_000) });
    assert.deepEqual(errors, [`spec: Invalid value: "object": no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(rule.messageExpression)}`]);
  });

  it('a literal pattern RE2 refuses is refused when the rule is written, as cel-go plans it', () => {
    const at = `${ROOT}.properties[spec].${RULES}[0].rule`;
    const cases: [string, string][] = [
      ['self.s.matches("(?=a)")', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
      ['self.s.find("(a)\\\\1") == ""', 'error parsing regexp: invalid escape sequence: `\\1`'],
      ['self.s.findAll("(?<=a)b").size() == 0', 'error parsing regexp: invalid or unsupported Perl syntax: `(?<`'],
      ['self.s.size() > 0 && matches(self.s, "a**")', 'error parsing regexp: invalid nested repetition operator: `**`'],
    ];
    for (const [rule, error] of cases) {
      assert.deepEqual(compileErrors(rule), [
        `${at}: Invalid value: apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:""}: program instantiation failed: ${error}`,
      ]);
    }
    const msg = compileValidations(schema([{ rule: 'true', messageExpression: 'self.s.find("(?!a)")' }]), ROOT).errors.map((e) => e.detail);
    assert.deepEqual(msg, [
      'Invalid value: apiextensions.ValidationRule{Rule:"true", Message:"", MessageExpression:"self.s.find(\\"(?!a)\\")"}: messageExpression instantiation failed: error parsing regexp: invalid or unsupported Perl syntax: `(?!`',
    ]);
  });

  it('a pattern RE2 refuses, read from the object, fails the rule as an evaluation error', () => {
    const rule = 'self.s.matches(self.p)';
    assert.deepEqual(timed([rule], { s: 'ab', p: '(a)\\1' }).errors, [`spec: Invalid value: "object": error parsing regexp: invalid escape sequence: \`\\1\` evaluating rule: ${rule}`]);
  });

  it('string functions keep Go\'s semantics', () => {
    const rules = [
      '"a,b,c".split(",", 2) == ["a", "b,c"] && "a,b,c".split(",", 0) == [] && "a,b".split(",", -1) == ["a", "b"]',
      '"abc".split("") == ["a", "b", "c"] && "abc".split("", 2) == ["a", "bc"]',
      '"aaa".replace("a", "b", -1) == "bbb" && "aaa".replace("a", "b", 2) == "bba" && "aaa".replace("a", "b", 0) == "aaa"',
      '"ab".replace("", "-") == "-a-b-" && "ab".replace("", "-", 2) == "-a-b"',
      '"Hello, World".lowerAscii() == "hello, world" && "Straße".upperAscii() == "STRAßE"',
      '["a", "b"].join() == "ab" && [].join(",") == ""',
    ];
    assert.deepEqual(timed(rules, { s: 'x' }).errors, []);
  });

  it('creation-time cost refusals keep Kubernetes\' messages and figures', () => {
    // 3 MiB strings: the text's traversal times the pattern's length is over the limit.
    const errs = compileErrors('self.s.matches(self.s)');
    assert.deepEqual(errs.slice(0, 1), [
      `${ROOT}.properties[spec].${RULES}[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
    // Kubernetes' replace estimate: a literal that cannot shrink bounds the result by the input.
    assert.deepEqual(compileErrors('self.t.replace("a", "b").replace("b", "c").size() > 0'), []);
    // An empty text to replace surrounds every character: the result grows with the replacement.
    assert.ok(compileErrors('self.t.replace("", self.t).replace("a", "b").size() > 0')[0].includes('estimated rule cost exceeds budget by factor of'));
  });
});
