// Validation helpers shared by the kinds: name formats, label selectors, immutability.
// ObjectMeta itself is validated once, by the registry's Store, for every kind. Messages
// follow the wording of Kubernetes' validation packages, since clients match on them.
import {
  forbiddenField,
  invalidField,
  notSupportedField,
  requiredField,
  type FieldError,
} from '../apimachinery/errors.js';
import { isPlainObject } from '../apimachinery/types.js';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  labelSelectorAsSelector,
  type LabelSelectorObject,
} from '../apimachinery/labels.js';

// The name and label rules are apimachinery's; the kinds re-export them for their own checks.
export { isDNS1123Label, isDNS1123Subdomain, isQualifiedName };
import { obj, str } from './util.js';
import { deepEqual } from '../apimachinery/equality.js';

export function validateLabels(labels: unknown, path: string): FieldError[] {
  if (labels === undefined || labels === null) return [];
  if (!isPlainObject(labels)) return [invalidField(path, labels, 'must be a map of string keys to string values')];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const m of isQualifiedName(k)) errs.push(invalidField(path, k, m));
    if (typeof v !== 'string') errs.push(invalidField(`${path}[${k}]`, v, 'must be a string'));
    else for (const m of isValidLabelValue(v)) errs.push(invalidField(path, v, m));
  }
  return errs;
}

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  if (annotations === undefined || annotations === null) return [];
  if (!isPlainObject(annotations)) return [invalidField(path, annotations, 'must be a map of string keys to string values')];
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalidField(path, k, m));
    if (typeof v !== 'string') errs.push(invalidField(`${path}[${k}]`, v, 'must be a string'));
    size += k.length + (typeof v === 'string' ? v.length : 0);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push({ type: 'FieldValueTooLong', field: path, detail: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes` });
  }
  return errs;
}

/** `field is immutable` when the value changed. */
export function immutable(now: unknown, before: unknown, path: string): FieldError[] {
  return deepEqual(now, before) ? [] : [invalidField(path, now ?? null, 'field is immutable')];
}

/**
 * An integer field's value as a bigint: int64 fields hold a `number`, or a `bigint` beyond
 * 2^53 (the decoders keep those exact), and both compare alike here. Undefined for anything
 * else (the schema check has refused it already, or the field is unset).
 */
export function integerValue(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  return undefined;
}

/** Kubernetes' InclusiveRangeError check: `value` within [lo, hi]. */
export function inclusiveRange(value: unknown, lo: number, hi: number, path: string): FieldError[] {
  if (value === undefined || value === null) return [];
  const v = integerValue(value);
  if (v === undefined) return [invalidField(path, value, 'must be an integer')];
  return v < BigInt(lo) || v > BigInt(hi) ? [invalidField(path, value, `must be between ${lo} and ${hi}, inclusive`)] : [];
}

export function nonNegative(value: unknown, path: string): FieldError[] {
  if (value === undefined || value === null) return [];
  const v = integerValue(value);
  if (v === undefined) return [invalidField(path, value, 'must be an integer')];
  return v < 0n ? [invalidField(path, value, 'must be greater than or equal to 0')] : [];
}

export function oneOf(value: unknown, allowed: string[], path: string, required = false): FieldError[] {
  if (value === undefined || value === null || value === '') return required ? [requiredField(path)] : [];
  return typeof value === 'string' && allowed.includes(value) ? [] : [notSupportedField(path, value, allowed)];
}


/** A metav1.LabelSelector: matchLabels valid as labels, matchExpressions well formed. */
export function validateLabelSelector(selector: unknown, path: string): FieldError[] {
  if (selector === undefined || selector === null) return [];
  const sel = obj(selector);
  if (!sel) return [invalidField(path, selector, 'must be a label selector object')];
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  const exprs = sel.matchExpressions;
  if (exprs !== undefined && exprs !== null) {
    if (!Array.isArray(exprs)) return [...errs, invalidField(`${path}.matchExpressions`, exprs, 'must be a list')];
    exprs.forEach((e, i) => {
      const p = `${path}.matchExpressions[${i}]`;
      const expr = obj(e);
      if (!expr) {
        errs.push(invalidField(p, e, 'must be an object'));
        return;
      }
      const op = str(expr.operator);
      const values = Array.isArray(expr.values) ? expr.values : [];
      if (op === 'In' || op === 'NotIn') {
        if (values.length === 0) errs.push(requiredField(`${p}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
      } else if (op === 'Exists' || op === 'DoesNotExist') {
        if (values.length > 0) errs.push(forbiddenField(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      } else {
        errs.push(invalidField(`${p}.operator`, expr.operator ?? '', 'not a valid selector operator'));
      }
      const key = str(expr.key) ?? '';
      for (const m of isQualifiedName(key)) errs.push(invalidField(`${p}.key`, key, m));
    });
  }
  return errs;
}


/** Whether a metav1.LabelSelector selects a label set (used to check templates against selectors). */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  const sel = obj(selector);
  if (!sel) return false;
  try {
    return labelSelectorAsSelector(sel as LabelSelectorObject).matches(labels);
  } catch {
    return false;
  }
}

/** Whether a selector is empty (selects everything). */
export function selectorIsEmpty(selector: unknown): boolean {
  const sel = obj(selector);
  if (!sel) return true;
  const ml = obj(sel.matchLabels);
  const me = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  return (!ml || Object.keys(ml).length === 0) && me.length === 0;
}

/** A label selector in its string form (`app=web,tier in (a,b)`), as Scale's `status.selector`. */
export function selectorString(selector: unknown): string {
  const sel = obj(selector);
  if (!sel) return '';
  const parts: string[] = [];
  const ml = obj(sel.matchLabels) ?? {};
  const reqs: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(ml)) reqs.push({ key: k, text: `${k}=${String(v)}` });
  for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    const expr = obj(e);
    if (!expr) continue;
    const key = str(expr.key) ?? '';
    const values = (Array.isArray(expr.values) ? expr.values : []).map(String).sort();
    switch (expr.operator) {
      case 'In':
        reqs.push({ key, text: `${key} in (${values.join(',')})` });
        break;
      case 'NotIn':
        reqs.push({ key, text: `${key} notin (${values.join(',')})` });
        break;
      case 'Exists':
        reqs.push({ key, text: key });
        break;
      case 'DoesNotExist':
        reqs.push({ key, text: `!${key}` });
        break;
    }
  }
  // Requirements print sorted by key, as the parsed selector's String() does.
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const r of reqs) parts.push(r.text);
  return parts.join(',');
}

/** `map[string]string` as the printers show selectors: `k=v,k2=v2`, sorted. */
export function mapSelectorString(selector: unknown): string {
  const m = obj(selector);
  if (!m) return '';
  return Object.keys(m)
    .sort()
    .map((k) => `${k}=${String(m[k])}`)
    .join(',');
}
