// The one reader of YAML request bodies (the YAML serializer and apply both use it). It
// refuses what would hurt the server before the YAML library builds anything: documents
// nested too deeply, and documents whose aliases expand to far more than they are written
// as. JSON, which most clients send even as YAML, takes the native JSON reader instead.
import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { parseJsonText, toWellFormed } from './json.js';
import { setOwn } from '../apimachinery/own.js';
import { checkIndentDepth, checkRawBracketDepth, MAX_NESTING_DEPTH, tooDeep } from './limits.js';

/**
 * A document that is not well-formed YAML, or one the decoder refuses; `detail` is worded
 * as Kubernetes' YAML library words it. Callers add their own prefix.
 */
export class YamlSyntaxError extends Error {}

/** Options for every parse: nothing is ever printed (a warning quotes its source line, secrets included). */
const PARSE_OPTIONS = {
  // Merge keys (`<<`) are part of the YAML Kubernetes reads.
  merge: true,
  uniqueKeys: false,
  strict: false,
  logLevel: 'silent',
  // Errors name the line and column, as before.
  prettyErrors: true,
  intAsBigInt: true,
} as const;

/** Reads a YAML (or JSON) document into plain values; see the module comment for the limits. */
export function readYaml(s: string): unknown {
  checkRawBracketDepth(s, true);
  checkIndentDepth(s);
  if (looksLikeJson(s)) {
    try {
      // The YAML bracket check above is the stricter one.
      return parseJsonText(s, { checkDepth: false });
    } catch (e) {
      // Not JSON after all (or JSON that YAML reads differently): the YAML reader decides.
      if (!(e instanceof SyntaxError)) throw e;
    }
  }
  const doc = parseDocument(s, PARSE_OPTIONS);
  if (doc.errors.length > 0) throw new YamlSyntaxError(doc.errors[0]!.message);
  checkAliases(doc);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: -1 });
  } catch (e) {
    throw new YamlSyntaxError(e instanceof Error ? e.message : String(e));
  }
  return normalize(value);
}

/** Whether the text starts as JSON does; only such bodies try the JSON reader first. */
export function looksLikeJson(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x7b || c === 0x5b;
  }
  return false;
}

// Kubernetes' YAML library refuses a document when, past a small size, the share of its
// decoded content that comes from alias expansion exceeds a ratio that falls from 99% (up
// to 400,000 units) to 10% (from 4,000,000 units). It counts nodes; here a string counts
// its length (at least one), so that aliases of one long string are bounded as well.
const ALIAS_RATIO_LOW = 400_000;
const ALIAS_RATIO_HIGH = 4_000_000;

export function allowedAliasRatio(total: number): number {
  if (total <= ALIAS_RATIO_LOW) return 0.99;
  if (total >= ALIAS_RATIO_HIGH) return 0.1;
  return 0.99 - 0.89 * ((total - ALIAS_RATIO_LOW) / (ALIAS_RATIO_HIGH - ALIAS_RATIO_LOW));
}

const EXCESSIVE_ALIASING = 'yaml: document contains excessive aliasing';

interface Extent {
  /** Units the node decodes to, its aliases expanded. */
  units: number;
  /** Nesting of collections, its aliases expanded. */
  height: number;
}

/**
 * Measures what the document would expand to without expanding it: each anchored node's
 * extent is remembered, and an alias adds its target's. Anchors are resolved in document
 * order (an alias names the last anchor of that name before it), in one pass.
 */
function checkAliases(doc: Document): void {
  const anchors = new Map<string, Extent>();
  let total = 0;
  let aliased = 0;
  const visit = (node: unknown): Extent => {
    let units = 1;
    let height = 0;
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (target === undefined) throw new YamlSyntaxError(`Unresolved alias (the anchor must be set before the alias): ${node.source}`);
      aliased += target.units;
      total += target.units;
      return target;
    }
    if (isScalar(node)) {
      const v = node.value;
      if (typeof v === 'string' && v.length > 1) units = v.length;
    } else if (isMap(node) || isSeq(node)) {
      for (const item of node.items as unknown[]) {
        const parts = isPair(item) ? [item.key, item.value] : [item];
        for (const part of parts) {
          if (part === null || part === undefined) continue;
          const e = visit(part);
          units += e.units;
          if (e.height > height) height = e.height;
        }
      }
      height++;
      if (height > MAX_NESTING_DEPTH) throw tooDeep();
    }
    if (!isAlias(node)) total += isScalar(node) ? units : 1;
    const extent = { units, height };
    const anchor = (node as Node).anchor;
    if (anchor) anchors.set(anchor, extent);
    return extent;
  };
  if (doc.contents !== null) visit(doc.contents);
  if (aliased > 100 && total > 1000 && aliased / total > allowedAliasRatio(total)) throw new YamlSyntaxError(EXCESSIVE_ALIASING);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The library's values as the JSON decoding of Kubernetes has them: integers stay exact
 * `bigint`s only beyond 2^53 (and within int64), binary scalars become strings, strings are
 * well-formed, and shared alias targets become copies (one object per place it is used).
 */
function normalize(value: unknown): unknown {
  const fix = (v: unknown): unknown => {
    if (typeof v === 'bigint') {
      const n = Number(v);
      return Number.isSafeInteger(n) || v < INT64_MIN || v > INT64_MAX ? n : v;
    }
    if (typeof v === 'string') return toWellFormed(v);
    if (v instanceof Uint8Array) return toWellFormed(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8'));
    if (typeof v !== 'object' || v === null) return v;
    return Array.isArray(v) ? [...(v as unknown[])] : copyObject(v as Record<string, unknown>);
  };
  const root = fix(value);
  // Iterative: the result of alias expansion may nest deeper than its source text.
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d >= MAX_NESTING_DEPTH) throw tooDeep();
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const child = fix(o[k]);
      if (child !== o[k]) setOwn(o, k, child);
      stack.push([child, d + 1]);
    }
  }
  return root;
}

function copyObject(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) setOwn(out, toWellFormed(k), o[k]);
  return out;
}
