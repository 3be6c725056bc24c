// The annotation in which client-side apply (kubectl) keeps the configuration it last
// applied. Server-side apply by kubectl keeps it current, so that a later client-side apply
// still computes the right three-way patch.
import type { KubeObject } from '../apimachinery/types.js';
import { toWellFormed } from '../codec/json.js';
import { longDomainKey } from '../naming/index.js';

/** `kubectl.kubernetes.io/last-applied-configuration` in the flavor's domain. */
export function lastAppliedAnnotation(): string {
  return longDomainKey('last-applied-configuration', 'kubectl');
}

/** The total size of an object's annotations (keys and values, in bytes) Kubernetes allows. */
const ANNOTATIONS_SIZE_LIMIT = 256 * 1024;

/**
 * `obj` with its last-applied annotation, if it has a non-empty one, set to `config`: the
 * configuration without that annotation, as Go's JSON encoder writes it. When the result
 * would exceed the size allowed for annotations, the annotation is dropped instead.
 */
export function withLastApplied(obj: KubeObject, config: KubeObject): KubeObject {
  const key = lastAppliedAnnotation();
  if (!obj.metadata?.annotations?.[key]) return obj;
  const annotations = { ...obj.metadata.annotations, [key]: encodeLastApplied(config) };
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (size > ANNOTATIONS_SIZE_LIMIT) delete annotations[key];
  return { ...obj, metadata: { ...obj.metadata, annotations } };
}

/** The annotation's value for `config`: the configuration without the annotation itself. */
export function encodeLastApplied(config: KubeObject): string {
  const copy = structuredClone(config);
  const key = lastAppliedAnnotation();
  const annotations = copy.metadata?.annotations;
  if (copy.metadata && annotations && Object.hasOwn(annotations, key)) {
    delete annotations[key];
    // Go drops an annotation map left empty.
    if (Object.keys(annotations).length === 0) delete copy.metadata.annotations;
  }
  return `${goJson(copy)}\n`;
}

/**
 * JSON as Go's encoder writes an unstructured object: map keys sorted, `<`, `>`, `&`, U+2028
 * and U+2029 escaped, control characters other than `\n`, `\r`, `\t` as `\u00XX`.
 */
function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    // Go compares the keys' UTF-8 bytes.
    entries.sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${entries.map(([k, x]) => `${goString(k)}:${goJson(x)}`).join(',')}}`;
  }
  return 'null';
}

function goString(s: string): string {
  let out = '"';
  for (const ch of toWellFormed(s)) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
