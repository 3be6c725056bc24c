// Field validation of a decoded request body against the catalog, as the server's decoder
// does it: wrong types fail the request at every level; unknown and duplicate fields are
// pruned and reported according to `fieldValidation`; required fields and enum values are
// returned as field errors for the caller to merge with the strategy's validation.
// Values with a canonical form (quantities, times, durations) are normalized in place, and
// values Go's encoder would leave out (`omitempty` zero values) are removed, so that what is
// stored and answered is what Kubernetes would write.

import {
  ApiError,
  badRequest,
  invalid,
  invalidField,
  notSupportedField,
  requiredField,
  type FieldError,
} from '../apimachinery/errors.js';
import { flavor } from '../naming/index.js';
import { lookupType, jsonFields, servedFieldName, typeIdForKind } from './catalog.js';
import type { FieldDef, ScalarType, TypeRef } from './catalog-types.js';
import { checkBase64, normalizeDuration, normalizeMicroTime, normalizeTime } from './go-values.js';
import { canonicalQuantity } from './quantity.js';
import { setOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface CheckOptions {
  fieldValidation: FieldValidation;
  /** Paths of duplicate JSON keys in the body, from `parseJsonWithDuplicates`. */
  duplicateFields?: string[];
  /**
   * For PATCH: the patched object as JSON text. Kubernetes reports a patch whose result
   * fails to decode as 422 `patch: Invalid value: ...` rather than 400.
   */
  patchText?: string;
  /** Report missing required fields (default true). */
  checkRequired?: boolean;
}

export interface CheckResult {
  /** `unknown field "spec.foo"` / `duplicate field "x"`, for Warning headers (Warn only). */
  warnings: string[];
  /** Missing required fields and unsupported enum values. */
  errors: FieldError[];
}

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

class DecodeFailure {
  constructor(readonly message: string) {}
}

/** Go type names as they appear in decoding errors (`[]v1.Container`, `int32`). */
function goTypeName(t: TypeRef): string {
  if ('list' in t) return `[]${goTypeName(t.list)}`;
  if ('map' in t) return `map[string]${goTypeName(t.map)}`;
  if ('ref' in t) return t.ref.split('.').slice(-2).join('.');
  switch (t.scalar) {
    case 'boolean':
      return 'bool';
    case 'bytes':
      return '[]uint8';
    case 'quantity':
      return 'resource.Quantity';
    case 'int-or-string':
      return 'intstr.IntOrString';
    case 'time':
      return 'v1.Time';
    case 'micro-time':
      return 'v1.MicroTime';
    case 'duration':
      return 'v1.Duration';
    case 'raw-extension':
      return 'runtime.RawExtension';
    case 'fields-v1':
      return 'v1.FieldsV1';
    case 'json':
      return 'interface {}';
    default:
      return t.scalar;
  }
}

/**
 * A number as Go's decoder quotes it (the literal the client sent): an integer beyond int64
 * reaches here as a float, whose exact digits (9223372036854775808) are the literal's for
 * 2^63 and the like, where JavaScript would print 9223372036854776000.
 */
function numberText(value: unknown): string {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value) && Math.abs(value) < 1e21) return BigInt(value).toString();
  return String(value);
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  return 'object';
}

const fieldIndex = new Map<string, Map<string, FieldDef>>();

function fieldsByName(typeId: string): Map<string, FieldDef> {
  const key = `${flavor()}:${typeId}`;
  let m = fieldIndex.get(key);
  if (!m) {
    m = new Map(jsonFields(typeId).map((f) => [servedFieldName(f.name), f]));
    fieldIndex.set(key, m);
  }
  return m;
}

/**
 * Whether Go's encoder leaves this value out (`omitempty`): nil, and for a non-pointer
 * field an empty string, list, map, zero number or false. Structs, times, quantities and
 * int-or-strings are structs in Go and are never left out.
 */
function omittedByGo(value: unknown, f: FieldDef): boolean {
  if (!f.omitEmpty) return false;
  if (value === null) return true;
  if (f.pointer) return false;
  const t = f.type;
  if ('list' in t) return Array.isArray(value) && value.length === 0;
  if ('map' in t) return isPlainObject(value) && Object.keys(value).length === 0;
  const scalar = 'ref' in t ? lookupType(t.ref)?.scalar : t.scalar;
  switch (scalar) {
    case 'string':
    case 'bytes':
      return value === '';
    case 'int32':
    case 'int64':
    case 'float64':
      return value === 0;
    case 'boolean':
      return value === false;
    default:
      return false;
  }
}

function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** Walks one object; collects findings in document order, prunes, and normalizes. */
class Walker {
  readonly findings: string[] = [];
  readonly errors: FieldError[] = [];
  typeError: DecodeFailure | undefined;
  private readonly pendingDuplicates: Map<string, number>;
  /** The duplicate paths in code-unit order, for finding those under a subtree by binary search. */
  private sortedDuplicates: string[] | undefined;
  private readonly firstSeen = new Map<string, number>();

  constructor(
    duplicates: string[],
    private readonly prune: boolean,
    private readonly checkRequired: boolean,
  ) {
    this.pendingDuplicates = new Map();
    for (const d of duplicates) {
      if (!this.firstSeen.has(d)) this.firstSeen.set(d, this.firstSeen.size);
      this.pendingDuplicates.set(d, (this.pendingDuplicates.get(d) ?? 0) + 1);
    }
  }

  /**
   * The still pending duplicates strictly under `path` (`path.…` or `path[…`). Looked up in
   * the sorted list rather than by scanning every pending path, which made a body with many
   * duplicate and many unknown fields quadratic.
   */
  private duplicatesUnder(path: string): string[] {
    if (this.pendingDuplicates.size === 0) return [];
    this.sortedDuplicates ??= [...this.pendingDuplicates.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const sorted = this.sortedDuplicates;
    const out: string[] = [];
    for (const prefix of [`${path}.`, `${path}[`]) {
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (sorted[mid] < prefix) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < sorted.length && sorted[i].startsWith(prefix); i++) {
        if (this.pendingDuplicates.has(sorted[i])) out.push(sorted[i]);
      }
    }
    return out;
  }

  private emitDuplicate(path: string): void {
    const n = this.pendingDuplicates.get(path);
    if (!n) return;
    this.pendingDuplicates.delete(path);
    for (let i = 0; i < n; i++) this.findings.push(`duplicate field ${JSON.stringify(path)}`);
  }

  /** Duplicates under a subtree the decoder does not look into are not reported. */
  private dropDuplicatesUnder(path: string): void {
    for (const d of this.duplicatesUnder(path)) this.pendingDuplicates.delete(d);
  }

  private emitDuplicatesUnder(path: string): void {
    // In the order the decoder met them, as a scan of the pending map would emit them.
    const under = this.duplicatesUnder(path);
    under.sort((a, b) => (this.firstSeen.get(a) ?? 0) - (this.firstSeen.get(b) ?? 0));
    for (const d of under) this.emitDuplicate(d);
  }

  remainingDuplicates(): string[] {
    const out: string[] = [];
    for (const [d, n] of this.pendingDuplicates) for (let i = 0; i < n; i++) out.push(`duplicate field ${JSON.stringify(d)}`);
    return out;
  }

  private fail(value: unknown, goPath: string, struct: string, type: TypeRef, literal?: boolean): void {
    if (this.typeError) return;
    const what = literal ? `number ${numberText(value)}` : jsonKind(value);
    this.typeError = new DecodeFailure(
      `json: cannot unmarshal ${what} into Go struct field ${struct}.${goPath} of type ${goTypeName(type)}`,
    );
  }

  private failRaw(message: string): void {
    if (!this.typeError) this.typeError = new DecodeFailure(message);
  }

  /** Checks an object of a catalog struct type. `goPath` is the dotted path without indices. */
  struct(obj: Record<string, unknown>, typeId: string, path: string, goPath: string): void {
    const fields = fieldsByName(typeId);
    const struct = typeId.split('.').pop() ?? typeId;
    for (const key of Object.keys(obj)) {
      const fieldPath = join(path, key);
      const f = fields.get(key);
      if (!f) {
        this.findings.push(`unknown field ${JSON.stringify(fieldPath)}`);
        this.pendingDuplicates.delete(fieldPath);
        this.dropDuplicatesUnder(fieldPath);
        if (this.prune) delete obj[key];
        continue;
      }
      this.emitDuplicate(fieldPath);
      const value = obj[key];
      if (value === null) continue; // null decodes to the zero value, never an error
      const replaced = this.value(value, f.type, fieldPath, join(goPath, key), struct, f);
      if (replaced !== undefined) obj[key] = replaced;
    }
    if (this.checkRequired) {
      for (const [name, f] of fields) {
        if (f.required && !Object.hasOwn(obj, name)) this.errors.push(requiredField(join(path, name)));
      }
    }
    for (const key of Object.keys(obj)) {
      const f = fields.get(key);
      if (f && omittedByGo(obj[key], f)) delete obj[key];
    }
  }

  /** Checks one value; returns a replacement when the value has a canonical form. */
  private value(value: unknown, type: TypeRef, path: string, goPath: string, struct: string, field?: FieldDef): unknown {
    if ('ref' in type) {
      if (!isPlainObject(value)) return this.fail(value, goPath, struct, type);
      if (!lookupType(type.ref)) return undefined;
      this.struct(value, type.ref, path, goPath);
      return undefined;
    }
    if ('list' in type) {
      if (!Array.isArray(value)) return this.fail(value, goPath, struct, type);
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const itemPath = `${path}[${i}]`;
        if (item === null) continue;
        const r = this.value(item, type.list, itemPath, goPath, struct, field);
        if (r !== undefined) value[i] = r;
      }
      return undefined;
    }
    if ('map' in type) {
      if (!isPlainObject(value)) return this.fail(value, goPath, struct, type);
      for (const k of Object.keys(value)) {
        const entryPath = join(path, k);
        this.emitDuplicate(entryPath);
        const item = value[k];
        if (item === null) continue;
        const r = this.value(item, type.map, entryPath, goPath, struct, field);
        if (r !== undefined) setOwn(value, k, r);
      }
      return undefined;
    }
    return this.scalar(value, type.scalar, path, goPath, struct, field);
  }

  private scalar(value: unknown, scalar: ScalarType, path: string, goPath: string, struct: string, field?: FieldDef): unknown {
    const type = { scalar };
    switch (scalar) {
      case 'string':
        if (typeof value !== 'string') return this.fail(value, goPath, struct, type);
        if (field?.enum && value !== '' && !field.enum.includes(value)) {
          this.errors.push(notSupportedField(path, value, field.enum));
        }
        return undefined;
      case 'boolean':
        if (typeof value !== 'boolean') this.fail(value, goPath, struct, type);
        return undefined;
      case 'int32':
      case 'int64': {
        // Integers beyond 2^53 arrive as bigint: valid int64s, out of range for int32.
        if (typeof value === 'bigint') {
          const bits = scalar === 'int32' ? 31n : 63n;
          if (value < -(2n ** bits) || value >= 2n ** bits) this.fail(value, goPath, struct, type, true);
          return undefined;
        }
        if (typeof value !== 'number') return this.fail(value, goPath, struct, type);
        const limit = scalar === 'int32' ? 2 ** 31 : 2 ** 63;
        if (!Number.isInteger(value) || value < -limit || value >= limit) this.fail(value, goPath, struct, type, true);
        return undefined;
      }
      case 'float64':
        if (typeof value !== 'number' && typeof value !== 'bigint') this.fail(value, goPath, struct, type);
        return undefined;
      case 'bytes':
        if (typeof value !== 'string') return this.fail(value, goPath, struct, type);
        try {
          checkBase64(value);
        } catch (e) {
          this.failRaw((e as Error).message);
        }
        return undefined;
      case 'int-or-string': {
        const int32 = { scalar: 'int32' as const };
        if (typeof value === 'string') return undefined;
        if (typeof value === 'bigint') return this.fail(value, goPath, struct, int32, true);
        if (typeof value !== 'number') return this.fail(value, goPath, struct, int32);
        if (!Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31) this.fail(value, goPath, struct, int32, true);
        return undefined;
      }
      case 'quantity':
        return this.converted(() => {
          if (typeof value !== 'string' && typeof value !== 'number') return canonicalQuantity('');
          return canonicalQuantity(String(value));
        });
      case 'time':
      case 'micro-time':
      case 'duration': {
        if (typeof value !== 'string') return this.fail(value, goPath, struct, { scalar: 'string' });
        const normalize = scalar === 'time' ? normalizeTime : scalar === 'micro-time' ? normalizeMicroTime : normalizeDuration;
        return this.converted(() => normalize(value));
      }
      case 'fields-v1':
        if (!isPlainObject(value)) this.failRaw(`json: cannot unmarshal ${jsonKind(value)} into Go value of type map[string]interface {}`);
        return undefined;
      case 'raw-extension':
        this.dropDuplicatesUnder(path);
        return undefined;
      case 'json':
        this.emitDuplicatesUnder(path);
        return undefined;
    }
  }

  private converted(convert: () => string): unknown {
    try {
      return convert();
    } catch (e) {
      this.failRaw((e as Error).message);
      return undefined;
    }
  }
}

/**
 * Validates a decoded body against the catalog type of its kind. Throws ApiError for type
 * errors (400, or 422 for patches) and, with `Strict`, for unknown or duplicate fields;
 * with `Ignore` and `Warn` unknown fields are removed from `obj` in place.
 */
export function checkObject(obj: unknown, gvk: Gvk, options: CheckOptions): CheckResult {
  const level = options.fieldValidation;
  const duplicates = options.duplicateFields ?? [];
  const typeId = typeIdForKind(gvk);
  const walker = new Walker(options.patchText !== undefined ? [] : duplicates, level !== 'Strict', options.checkRequired ?? true);
  if (typeId && lookupType(typeId)) {
    if (isPlainObject(obj)) walker.struct(obj, typeId, '', '');
    else walker.typeError = new DecodeFailure(`json: cannot unmarshal ${jsonKind(obj)} into Go value of type ${goTypeName({ ref: typeId })}`);
  }
  if (walker.typeError) throw decodeError(gvk, walker.typeError.message, options.patchText);
  // A patch's duplicates are in the patch itself and come first, as Kubernetes lists them.
  const findings =
    options.patchText !== undefined
      ? [...duplicates.map((d) => `duplicate field ${JSON.stringify(d)}`), ...walker.findings]
      : [...walker.findings, ...walker.remainingDuplicates()];
  if (level === 'Strict' && findings.length > 0) {
    throw decodeError(gvk, `strict decoding error: ${findings.join(', ')}`, options.patchText);
  }
  return { warnings: level === 'Warn' ? findings : [], errors: walker.errors };
}

function decodeError(gvk: Gvk, message: string, patchText: string | undefined): ApiError {
  if (patchText !== undefined) return invalid({ group: '', kind: '' }, '', [invalidField('patch', patchText, message)]);
  return badRequest(`${gvk.kind} in version ${JSON.stringify(gvk.version)} cannot be handled as a ${gvk.kind}: ${message}`);
}
