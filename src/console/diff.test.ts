// The history view's line diff (a pure module of the browser app).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { diffLines, withContext } from './app/diff.js';

const render = (a: string, b: string): string => diffLines(a, b).map((l) => `${l.kind}${l.text}`).join('\n');

describe('diffLines', () => {
  it('marks changed lines and keeps the common ones', () => {
    assert.equal(render('a\nb\nc\n', 'a\nB\nc\n'), ' a\n-b\n+B\n c');
    assert.equal(render('a\nc\n', 'a\nb\nc\n'), ' a\n+b\n c');
    assert.equal(render('a\nb\nc\n', 'a\nc\n'), ' a\n-b\n c');
  });
  it('diffs from and to nothing', () => {
    assert.equal(render('', 'x\ny\n'), '+x\n+y');
    assert.equal(render('x\n', ''), '-x');
    assert.equal(render('', ''), '');
  });
  it('finds the longest common lines in the middle', () => {
    assert.equal(render('h\n1\n2\n3\nt\n', 'h\n2\n3\n4\nt\n'), ' h\n-1\n 2\n 3\n+4\n t');
  });
  it('shows very large changes whole instead of building a huge table', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 3000 }, (_, i) => `b${i}`).join('\n');
    const lines = diffLines(a, b);
    assert.equal(lines.length, 6000);
    assert.equal(lines.filter((l) => l.kind === '-').length, 3000);
  });
  it('folds unchanged runs outside the context', () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n');
    const b = a.replace('l10', 'L10');
    const out = withContext(diffLines(a, b), 2).map((l) => `${l.kind}${l.text}`);
    assert.deepEqual(out, ['…8 unchanged lines', ' l8', ' l9', '-l10', '+L10', ' l11', ' l12', '…7 unchanged lines']);
  });
});
