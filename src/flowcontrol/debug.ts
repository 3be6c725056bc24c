// Text tables as Go's text/tabwriter writes kube-apiserver's APF dumps (minimum cell width 8,
// padding 1, spaces): cells joined by ",\t", each tab-terminated cell padded to its column.

/** Lays out lines whose cells are separated by tabs. */
export function tabulate(lines: readonly string[]): string {
  const rows = lines.map((l) => l.split('\t'));
  const widths: number[] = [];
  for (const cells of rows) {
    // The last cell of a line is not tab-terminated and takes no part in alignment.
    for (let i = 0; i < cells.length - 1; i++) widths[i] = Math.max(widths[i] ?? 8, cells[i]!.length + 1);
  }
  return rows.map((cells) => cells.map((c, i) => (i < cells.length - 1 ? c.padEnd(widths[i]!, ' ') : c)).join('') + '\n').join('');
}

export function row(...columns: (string | number | boolean)[]): string {
  return columns.map(String).join(',\t');
}
