// Generated rules against the cost estimate: whatever the estimate accepts when the definition
// is written must, on any object within the request size limit, answer (or be cancelled)
// without holding the event loop much longer than the per-evaluation deadline. Seeded, so a
// failure names a rule that fails again.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { compileValidations } from './validation.js';
import { EVALUATION_DEADLINE_MS, REQUEST_DEADLINE_MS } from './meter.js';
import { MAX_REQUEST_SIZE_BYTES } from './types.js';

/** A small deterministic generator (a linear congruential one is enough to vary rules). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

const PATTERNS = ['"(a+)+$"', '"[a-z]{999}[0-9]"', '"^a*$"', '"a|b"', '"(?:a|b)*a(?:a|b){40}$"', '".*"', '"a(?:.*z)?"', 'self.p'];
const STRINGS = ['"a"', '""', '"bb"', '"xyz"', 'self.p', 'self.s'];

class RuleGenerator {
  constructor(private readonly rnd: () => number) {}

  private pick<T>(xs: T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)];
  }

  str(depth: number): string {
    if (depth <= 0) return this.pick(['self.s', 'self.p', '"abc"']);
    const d = depth - 1;
    switch (Math.floor(this.rnd() * 10)) {
      case 0: return `${this.str(d)}.lowerAscii()`;
      case 1: return `${this.str(d)}.replace(${this.pick(STRINGS)}, ${this.pick(STRINGS)})`;
      case 2: return `self.l.join(${this.pick(['","', '""', 'self.p'])})`;
      case 3: return `${this.str(d)}.trim()`;
      case 4: return `(${this.str(d)} + ${this.str(d)})`;
      case 5: return `${this.str(d)}.find(${this.pick(PATTERNS)})`;
      case 6: return `${this.str(d)}.substring(0)`;
      case 7: return `self.l.map(x, x + ${this.str(0)}).join()`;
      case 8: return 'string(self.n.size())';
      default: return this.str(0);
    }
  }

  bool(depth: number): string {
    if (depth <= 0) return this.pick(['true', 'self.s.size() > 0', 'self.n.size() > 1']);
    const d = depth - 1;
    switch (Math.floor(this.rnd() * 16)) {
      case 0: return `${this.str(d)}.matches(${this.pick(PATTERNS)})`;
      case 1: return `${this.str(d)}.contains(${this.str(d)})`;
      case 2: return `${this.str(d)}.startsWith(${this.str(0)})`;
      case 3: return `${this.str(d)}.split(${this.pick(STRINGS)}).size() > 0`;
      case 4: return `${this.str(d)}.findAll(${this.pick(PATTERNS)}).size() > 0`;
      case 5: return `self.l.all(x, ${this.bool(d).replaceAll('self.s', 'x')})`;
      case 6: return `self.l.exists(x, x.matches(${this.pick(PATTERNS)}))`;
      case 7: return 'self.n.all(i, i >= 0)';
      case 8: return 'self.n.map(i, i * 2).filter(i, i % 3 == 0).size() >= 0';
      case 9: return 'self.m.all(k, self.m[k] != k)';
      case 10: return 'self.l.all(x, self.l.exists(y, x == y))';
      case 11: return `(${this.bool(d)} && ${this.bool(d)})`;
      case 12: return `(${this.bool(d)} || ${this.bool(d)})`;
      case 13: return `!${this.bool(d)}`;
      case 14: return `${this.str(d)} == ${this.str(d)}`;
      default: return `self.n.exists(i, i == ${this.pick(['-1', 'self.n.size()'])})`;
    }
  }

  fields(): Record<string, JSONSchemaProps> {
    const sMax = this.pick([undefined, 64, 4096, 100_000]);
    const lMax = this.pick([undefined, 100, 10_000]);
    const itemMax = this.pick([undefined, 64]);
    return {
      s: { type: 'string', ...(sMax ? { maxLength: sMax } : {}) },
      p: { type: 'string', maxLength: 64 },
      l: { type: 'array', ...(lMax ? { maxItems: lMax } : {}), items: { type: 'string', ...(itemMax ? { maxLength: itemMax } : {}) } },
      n: { type: 'array', items: { type: 'integer' } },
      m: { type: 'object', additionalProperties: { type: 'string' } },
    };
  }

  /** Objects as large as the schema and one request allow, each filling one field. */
  inputs(f: Record<string, JSONSchemaProps>): { name: string; spec: Record<string, unknown> }[] {
    const sLen = Math.min(f.s.maxLength ?? 1_000_000, 1_000_000);
    const itemLen = f.l.items && !Array.isArray(f.l.items) ? (f.l.items.maxLength ?? 20) : 20;
    const count = Math.min(f.l.maxItems ?? 100_000, Math.floor(2_500_000 / (itemLen + 3)));
    return [
      { name: 'long string', spec: { s: `${'a'.repeat(sLen - 1)}!`, p: this.pick(['(a+)+$', '[a-z]{999}[0-9]', 'a(?:.*z)?']), l: ['a'], n: [1], m: { a: 'b' } } },
      { name: 'long list of strings', spec: { s: 'ab', p: 'a', l: Array.from({ length: count }, (_, i) => `${'a'.repeat(itemLen - 1)}${i % 10}`), n: [1], m: {} } },
      { name: 'long list of integers', spec: { s: 'ab', p: 'a', l: [], n: Array.from({ length: 400_000 }, (_, i) => i), m: {} } },
      { name: 'large map', spec: { s: 'ab', p: 'a', l: [], n: [], m: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, `v${i}`])) } },
    ];
  }
}

function schemaWith(fields: Record<string, JSONSchemaProps>, rules: string[]): JSONSchemaProps {
  return { type: 'object', properties: { spec: { type: 'object', properties: fields, 'x-kubernetes-validations': rules.map((rule) => ({ rule })) } } };
}

/** The shortest of two runs: a collection of earlier garbage can land in either, not in both. */
function fastest(fn: () => void): number {
  let best = Infinity;
  for (let k = 0; k < 2; k++) {
    const started = performance.now();
    fn();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** What one evaluation may take: its deadline, and room for the walk and a busy machine. */
const EVALUATION_BOUND_MS = EVALUATION_DEADLINE_MS + 50;

it('no generated rule the estimate accepts holds the event loop past its deadline', { timeout: 300_000 }, () => {
  const gen = new RuleGenerator(random(20260101));
  let accepted = 0;
  let slowest = { ms: 0, rule: '', input: '' };
  for (let k = 0; k < 60; k++) {
    const fields = gen.fields();
    const rule = gen.bool(1 + Math.floor(k % 3));
    const c = compileValidations(schemaWith(fields, [rule]), 'spec.validation.openAPIV3Schema');
    if (c.errors.length > 0) continue;
    accepted++;
    for (const input of gen.inputs(fields)) {
      assert.ok(JSON.stringify(input.spec).length <= MAX_REQUEST_SIZE_BYTES, input.name);
      const ms = fastest(() => c.validator.validate({ spec: input.spec }, undefined));
      if (ms > slowest.ms) slowest = { ms, rule, input: input.name };
      assert.ok(ms < EVALUATION_BOUND_MS, `${rule} on a ${input.name}: ${ms.toFixed(0)} ms`);
    }
  }
  // The generator must exercise the estimate, not only be refused by it.
  assert.ok(accepted >= 20, `only ${accepted} rules accepted`);
  assert.ok(slowest.ms < EVALUATION_BOUND_MS, JSON.stringify(slowest));
});

it('the rules of one request together stop at the budget or the request deadline', { timeout: 60_000 }, () => {
  // Sixty rules, each accepted and each well within its own limits: together they would run
  // past the request's budget (in cost, or in time on a slow machine).
  const fields: Record<string, JSONSchemaProps> = { l: { type: 'array', maxItems: 40_000, items: { type: 'string', maxLength: 1 } } };
  const rules = Array.from({ length: 60 }, (_, i) => `self.l.all(x, x.size() <= ${i + 1})`);
  const c = compileValidations(schemaWith(fields, rules), 'spec.validation.openAPIV3Schema');
  assert.deepEqual(c.errors, []);
  const l = Array.from({ length: 40_000 }, () => 'a');
  // Warmed first: a cold evaluator is several times slower, and a rule would meet its own deadline.
  for (let k = 0; k < 3; k++) c.validator.validate({ spec: { l: l.slice(0, 2_000) } }, undefined);
  const started = performance.now();
  const errors = c.validator.validate({ spec: { l } }, undefined);
  const ms = performance.now() - started;
  assert.ok(ms < REQUEST_DEADLINE_MS + 2 * EVALUATION_BOUND_MS, `${ms.toFixed(0)} ms`);
  // One error stops the rest: the budget's, or (on a busy machine) one rule's own deadline.
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.match(
    `${errors[0].field}: ${errors[0].detail}`,
    /^spec: Invalid value: "object": (validation failed due to running out of cost budget, no further validation rules will be run|'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: .*)$/,
  );
});
