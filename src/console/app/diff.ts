// Line diff of two texts (longest common subsequence), for the history view: pure, no DOM.

export interface DiffLine {
  kind: ' ' | '+' | '-';
  text: string;
}

/** Above this many lines on both sides the table would be too large: the texts are shown whole, old then new. */
const MAX_CELLS = 4_000_000;

export function diffLines(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after === '' ? [] : after.replace(/\n$/, '').split('\n');
  // Common head and tail first: most revisions change a few lines of a long object.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ kind: ' ', text }));
  if ((midA.length + 1) * (midB.length + 1) > MAX_CELLS) {
    for (const text of midA) out.push({ kind: '-', text });
    for (const text of midB) out.push({ kind: '+', text });
  } else {
    const n = midA.length;
    const m = midB.length;
    // lcs[i][j]: length of the common subsequence of midA[i:] and midB[j:].
    const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i]![j] = midA[i] === midB[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        out.push({ kind: ' ', text: midA[i]! });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
        // Removed lines before added ones, as diff(1) shows a change.
        out.push({ kind: '-', text: midA[i]! });
        i++;
      } else {
        out.push({ kind: '+', text: midB[j]! });
        j++;
      }
    }
  }
  for (const text of a.slice(a.length - tail)) out.push({ kind: ' ', text });
  return out;
}

/** Keeps changed lines and `context` unchanged lines around them; runs of hidden lines become one '…' line. */
export function withContext(lines: DiffLine[], context = 3): Array<DiffLine | { kind: '…'; text: string }> {
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.kind === ' ') return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) keep[k] = true;
  });
  const out: Array<DiffLine | { kind: '…'; text: string }> = [];
  let hidden = 0;
  lines.forEach((l, i) => {
    if (keep[i]) {
      if (hidden > 0) out.push({ kind: '…', text: `${hidden} unchanged line${hidden === 1 ? '' : 's'}` });
      hidden = 0;
      out.push(l);
    } else hidden++;
  });
  if (hidden > 0) out.push({ kind: '…', text: `${hidden} unchanged line${hidden === 1 ? '' : 's'}` });
  return out;
}
