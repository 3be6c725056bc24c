import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileGoPattern, matchWork, MatchTooExpensive, MATCH_WORK_LIMIT } from './regex.js';

function matches(pattern: string, s: string): boolean {
  const c = compileGoPattern(pattern);
  if (!c.ok) throw new Error(c.error);
  return c.test(s);
}

describe('compileGoPattern', () => {
  const table: [string, string, boolean][] = [
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', 'my-name', true],
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', 'My-name', false],
    ['abc', 'xxabcxx', true],
    ['^abc$', 'abc\n', false],
    ['(?m)^b$', 'a\nb\nc', true],
    ['a.c', 'a\nc', false],
    ['(?s)a.c', 'a\nc', true],
    ['(?i)hello', 'HeLLo', true],
    ['a(?i)b', 'aB', true],
    ['a(?i)b', 'AB', false],
    ['(?i:a)b', 'AB', false],
    ['[[:alpha:]]+[[:digit:]]', 'ab1', true],
    ['[^[:alpha:]]', 'abc', false],
    ['\\d{3}-\\d{4}', '555-1234', true],
    ['\\s', '\u00a0', false],
    ['\\bfoo\\b', 'a foo b', true],
    ['\\bfoo\\b', 'afoob', false],
    ['\\Qa.b\\E', 'a.b', true],
    ['\\Qa.b\\E', 'axb', false],
    ['(?P<year>\\d{4})', '2024', true],
    ['\\pL+', 'é', true],
    ['\\p{Greek}', 'α', true],
    ['\\x41\\x{42}\\101', 'ABA', true],
    ['[\\x41-\\x43]{3}', 'CAB', true],
    ['a{2,3}', 'aa', true],
    ['^a{2,3}$', 'aaaa', false],
    ['x{', 'x{', true],
    ['[]a]', ']', true],
    ['[a-]', '-', true],
    ['(a|b)*c', 'ababc', true],
    ['^(a*)*$', 'aaaa', true],
    ['\\A\\z', '', true],
    ['\\.', 'x', false],
  ];
  for (const [pattern, s, want] of table) {
    it(`${pattern} against ${JSON.stringify(s)} is ${want}`, () => assert.equal(matches(pattern, s), want));
  }

  const refused: [string, string][] = [
    ['(a', 'error parsing regexp: missing closing ): `(a`'],
    ['a)', 'error parsing regexp: unexpected ): `a)`'],
    ['[a', 'error parsing regexp: missing closing ]: `[a`'],
    ['a**', 'error parsing regexp: invalid nested repetition operator: `**`'],
    ['*a', 'error parsing regexp: missing argument to repetition operator: `*`'],
    ['a{1001}', 'error parsing regexp: invalid repeat count: `{1001}`'],
    ['a{3,2}', 'error parsing regexp: invalid repeat count: `{3,2}`'],
    ['(?=a)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ['(?<n>a)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?<`'],
    ['(a)\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
    ['\\Z', 'error parsing regexp: invalid escape sequence: `\\Z`'],
    ['a\\', 'error parsing regexp: trailing backslash at end of expression: ``'],
    ['[z-a]', 'error parsing regexp: invalid character class range: `z-a`'],
    ['[[:foo:]]', 'error parsing regexp: invalid character class range: `[:foo:]`'],
    ['\\p{Nope}', 'error parsing regexp: invalid character class range: `\\p{Nope}`'],
  ];
  for (const [pattern, error] of refused) {
    it(`refuses ${pattern} as Go does`, () => assert.deepEqual(compileGoPattern(pattern), { ok: false, error }));
  }

  it('matches in linear time where a backtracking engine would not finish', () => {
    const start = Date.now();
    assert.equal(matches('^(a+)+$', `${'a'.repeat(5000)}!`), false);
    assert.equal(matches('^(a|aa)*b$', 'a'.repeat(5000)), false);
    assert.ok(Date.now() - start < 5000);
  });

  it('finds every match as Go\'s FindAllString does', () => {
    const all = (pattern: string, s: string, max = -1): string[] => {
      const c = compileGoPattern(pattern);
      if (!c.ok) throw new Error(c.error);
      return c.regexp.findAll(s, max, () => undefined);
    };
    assert.deepEqual(all('a*', 'baaac'), ['', 'aaa', '']);
    assert.deepEqual(all('[0-9]+', '123 abc 456'), ['123', '456']);
    assert.deepEqual(all('[0-9]+', '123 abc 456', 1), ['123']);
    assert.deepEqual(all('a|ab', 'ab'), ['a']);
    assert.deepEqual(all('\\b', '  ab'), ['', '']);
    assert.deepEqual(all('x*', '😀😀'), ['', '', '']);
    assert.deepEqual(all('^a', 'aaa'), ['a']);
  });

  it('refuses a match whose worst case exceeds the work bound, before running it', () => {
    const c = compileGoPattern('[a-z]{999}[0-9]');
    assert.ok(c.ok);
    const started = performance.now();
    assert.throws(() => c.test('a'.repeat(100_000)), MatchTooExpensive);
    assert.ok(performance.now() - started < 50);
    assert.equal(c.test('a'.repeat(900)), false);
    assert.ok(matchWork(900, c.regexp.programSize) <= MATCH_WORK_LIMIT);
    // findAll asks before every search.
    const spent: number[] = [];
    const d = compileGoPattern('a');
    assert.ok(d.ok);
    assert.deepEqual(d.regexp.findAll('aa', -1, (w) => spent.push(w)), ['a', 'a']);
    assert.deepEqual(spent, [matchWork(2, d.regexp.programSize), matchWork(1, d.regexp.programSize), matchWork(0, d.regexp.programSize)]);
  });

  it('refuses nesting beyond 1000 and programs that are too large', () => {
    const deep = `${'('.repeat(1001)}a${')'.repeat(1001)}`;
    assert.deepEqual(compileGoPattern(deep), { ok: false, error: `error parsing regexp: expression nests too deeply: \`${deep}\`` });
    // Go bounds nested repeats by their product, and programs by their size.
    assert.deepEqual(compileGoPattern('((a{1000}){1000}){1000}'), { ok: false, error: 'error parsing regexp: invalid repeat count: `{1000}`' });
    const big = 'x{1000}'.repeat(4000);
    assert.deepEqual(compileGoPattern(big), { ok: false, error: `error parsing regexp: expression too large: \`${big}\`` });
  });

  it('takes a huge pattern', () => {
    const alternatives = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join('|');
    assert.equal(matches(`^(${alternatives})$`, 'w19999'), true);
    assert.equal(matches(`^(${alternatives})$`, 'w20000'), false);
  });
});
