// The JSON Patch (RFC 6902) from one revision's object to the next, computed when read, never
// on the write path. Objects compare by key; arrays element by element over their common
// length, then the tail is added or removed (no move detection: the patch is correct, short
// for the usual small edits, not minimal for reordered lists).

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

/** RFC 6901: `~` and `/` in a key become `~0` and `~1`. */
export function escapePointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  if (typeof a === 'bigint' || typeof b === 'bigint') return String(a) === String(b) && typeof a === typeof b;
  return false;
}

/** The operations that turn `from` into `to`. */
export function jsonPatch(from: unknown, to: unknown): PatchOperation[] {
  const ops: PatchOperation[] = [];
  diffInto(ops, '', from, to);
  return ops;
}

function diffInto(ops: PatchOperation[], path: string, from: unknown, to: unknown): void {
  if (sameValue(from, to)) return;
  if (isObject(from) && isObject(to)) {
    for (const k of Object.keys(from)) {
      if (from[k] === undefined) continue;
      const p = `${path}/${escapePointerToken(k)}`;
      if (!Object.hasOwn(to, k) || to[k] === undefined) ops.push({ op: 'remove', path: p });
      else diffInto(ops, p, from[k], to[k]);
    }
    for (const k of Object.keys(to)) {
      if (to[k] === undefined || (Object.hasOwn(from, k) && from[k] !== undefined)) continue;
      ops.push({ op: 'add', path: `${path}/${escapePointerToken(k)}`, value: to[k] });
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) diffInto(ops, `${path}/${i}`, from[i], to[i]);
    // Removed from the end first, so that each index is still valid when applied in order.
    for (let i = from.length - 1; i >= common; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = common; i < to.length; i++) ops.push({ op: 'add', path: `${path}/-`, value: to[i] });
    return;
  }
  ops.push({ op: 'replace', path, value: to });
}
