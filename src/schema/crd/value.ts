// Value validation of a custom resource against its schema, as apiextensions runs it: the
// OpenAPI validator (kube-openapi's SchemaValidator: type, combinators, string, format,
// number, list, enum and object checks in that order, paths like `spec.items[0].name` and
// messages `spec.replicas in body must be of type integer: "string"`), translated to field
// errors; then the ObjectMeta of embedded resources and the uniqueness of
// `x-kubernetes-list-type` set and map lists.
import type { FieldError } from '../../apimachinery/errors.js';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { getOwn } from '../../apimachinery/own.js';
import { isDNS1035Label, isDNS1123Label, isQualifiedName, isValidLabelValue } from '../../apimachinery/labels.js';
import { formatCheck } from './formats.js';
import {
  child,
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  goFloat,
  goNumber,
  goQuote,
  isGoInt,
  key,
} from './go-format.js';
import { compileGoPattern, MatchTooExpensive } from './regex.js';

type Code =
  | 'type'
  | 'required'
  | 'tooLong'
  | 'tooShort'
  | 'pattern'
  | 'enum'
  | 'multipleOf'
  | 'max'
  | 'min'
  | 'unique'
  | 'maxItems'
  | 'minItems'
  | 'tooFewProperties'
  | 'tooManyProperties'
  | 'unallowedProperty'
  | 'multipleOfMustBePositive';

/** One error of the OpenAPI validator: `name` is its path; composite errors have none. */
interface OpenAPIError {
  code: Code | 'composite';
  name: string;
  message: string;
  value?: unknown;
  /** The bound a length or count error broke. */
  valid?: number;
  /** The enum values. */
  values?: unknown[];
}

interface Result {
  errors: OpenAPIError[];
  /** How many checks passed: among failed alternatives the one matching most is reported. */
  matches: number;
}

const IN = 'body';

/**
 * Whether the pattern matches, or undefined when the value is too long for the pattern's
 * program to be run on it in bounded time (Go would run it, however long: the server's
 * event loop cannot).
 */
function boundedTest(test: (s: string) => boolean, data: string): boolean | undefined {
  try {
    return test(data);
  } catch (e) {
    if (e instanceof MatchTooExpensive) return undefined;
    throw e;
  }
}

function typeNameOf(v: unknown): string {
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return isGoInt(v) ? 'integer' : 'number';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** The format Go's validator infers for a value (the int64 or float64 of a JSON number). */
function formatOf(v: unknown): string {
  if (typeof v === 'number') return isGoInt(v) ? 'int64' : 'float64';
  return '';
}

function named(name: string, tail: string): string {
  return name === '' ? tail : `${name} in ${IN} ${tail}`;
}

function invalidType(name: string, typeName: string, value: unknown): OpenAPIError {
  const tail = typeof value === 'string' ? `must be of type ${typeName}: ${goQuote(value)}` : `must be of type ${typeName}`;
  return { code: 'type', name, value, message: `${name} in ${IN} ${tail}` };
}

function fail(code: Code, name: string, tail: string, value?: unknown, extra?: Partial<OpenAPIError>): OpenAPIError {
  return { code, name, value, message: named(name, tail), ...extra };
}

function composite(message: string): OpenAPIError {
  return { code: 'composite', name: '', message };
}

/** A canonical text of a JSON value (keys sorted), for uniqueness checks in linear time. */
export function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const r = v as Record<string, unknown>;
    return `{${Object.keys(r).sort().map((k) => `${JSON.stringify(k)}:${canonicalJSON(r[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function isJSONInteger(f: number): boolean {
  if (!Number.isFinite(f)) return false;
  if (Number.isInteger(f)) return true;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  return diff / Math.min(Math.abs(f) + Math.abs(g), Number.MAX_VALUE) < 1e-9;
}

function boundText(bound: number, dataIsInt: boolean): string {
  return dataIsInt ? goNumber(Math.trunc(bound)) : goFloat(bound);
}

function typesOf(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return typeof s.type === 'string' && s.type !== '' ? [s.type] : [];
}

function schemaList(v: unknown): JSONSchemaProps[] {
  return Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object') as JSONSchemaProps[]) : [];
}

function asSchema(v: unknown): JSONSchemaProps | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JSONSchemaProps) : undefined;
}

class Validator {
  validate(s: JSONSchemaProps, data: unknown, path: string): Result {
    const res: Result = { errors: [], matches: 0 };
    const types = typesOf(s);
    const format = typeof s.format === 'string' ? s.format : '';
    if (data === null || data === undefined) {
      if ((types.length > 0 || format) && types.length > 0 && !s.nullable) res.errors.push(invalidType(path, types.join(','), 'null'));
      this.enumCheck(s, null, path, res);
      return res;
    }
    // type
    if (types.length > 0 || format) this.typeCheck(types, format, data, path, res);
    res.matches++;
    // allOf, anyOf, oneOf, not
    this.combinators(s, data, path, res);
    if (typeof data === 'string') {
      this.stringChecks(s, data, path, res);
      const check = format ? formatCheck(format) : undefined;
      if (check && !check(data)) res.errors.push(invalidType(path, format, data));
    }
    if (typeof data === 'number') this.numberChecks(s, data, path, res);
    if (Array.isArray(data)) this.arrayChecks(s, data, path, res);
    this.enumCheck(s, data, path, res);
    if (data !== null && typeof data === 'object' && !Array.isArray(data)) this.objectChecks(s, data as Record<string, unknown>, path, res);
    res.matches++;
    return res;
  }

  private typeCheck(types: string[], format: string, data: unknown, path: string, res: Result): void {
    const schType = typeNameOf(data);
    const valueFormat = formatOf(data);
    const isIntFloat = schType === 'integer' && types.includes('number');
    const isObjectOrScalar = typeof data !== 'string' && !Array.isArray(data);
    if (isObjectOrScalar && format && !(types.includes(schType) || valueFormat === format || isIntFloat)) {
      res.errors.push(invalidType(path, format, valueFormat));
      return;
    }
    if (!(types.includes('number') || types.includes('integer')) && format && (typeof data === 'string' || Array.isArray(data))) return;
    if (!(types.includes(schType) || isIntFloat)) res.errors.push(invalidType(path, types.join(','), schType));
  }

  private combinators(s: JSONSchemaProps, data: unknown, path: string, res: Result): void {
    const anyOf = schemaList(s.anyOf);
    if (anyOf.length > 0) {
      let best: Result | undefined;
      let ok = false;
      for (const branch of anyOf) {
        const r = this.validate(branch, data, path);
        if (r.errors.length === 0) {
          ok = true;
          best = undefined;
          res.matches += r.matches;
          break;
        }
        if (!best || r.matches > best.matches) best = r;
      }
      if (!ok) res.errors.push(composite(`${goQuote(path)} must validate at least one schema (anyOf)`));
      if (best) merge(res, best);
    }
    const oneOf = schemaList(s.oneOf);
    if (oneOf.length > 0) {
      let best: Result | undefined;
      let validated = 0;
      for (const branch of oneOf) {
        const r = this.validate(branch, data, path);
        if (r.errors.length === 0) {
          validated++;
          best = undefined;
          continue;
        }
        if (validated === 0 && (!best || r.matches > best.matches)) best = r;
      }
      if (validated !== 1) {
        const more = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
        res.errors.push(composite(`${goQuote(path)} must validate one and only one schema (oneOf). ${more}`));
        if (best) merge(res, best);
      } else res.matches++;
    }
    const allOf = schemaList(s.allOf);
    if (allOf.length > 0) {
      let validated = 0;
      for (const branch of allOf) {
        const r = this.validate(branch, data, path);
        if (r.errors.length === 0) validated++;
        merge(res, r);
      }
      if (validated !== allOf.length) {
        res.errors.push(composite(`${goQuote(path)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`));
      }
    }
    const not = asSchema(s.not);
    if (not && this.validate(not, data, path).errors.length === 0) {
      res.errors.push(composite(`${goQuote(path)} must not validate the schema (not)`));
    }
  }

  private stringChecks(s: JSONSchemaProps, data: string, path: string, res: Result): void {
    const needLength = typeof s.maxLength === 'number' || typeof s.minLength === 'number';
    const length = needLength ? [...data].length : 0;
    if (typeof s.maxLength === 'number' && length > s.maxLength) {
      res.errors.push(fail('tooLong', path, `should be at most ${s.maxLength} chars long`, data, { valid: s.maxLength }));
      return;
    }
    if (typeof s.minLength === 'number' && length < s.minLength) {
      res.errors.push(fail('tooShort', path, `should be at least ${s.minLength} chars long`, data, { valid: s.minLength }));
      return;
    }
    if (typeof s.pattern === 'string' && s.pattern !== '') {
      const compiled = compileGoPattern(s.pattern);
      if (!compiled.ok) res.errors.push(fail('pattern', path, `should match '${s.pattern}, but pattern is invalid: ${compiled.error}'`, data));
      else {
        const matched = boundedTest(compiled.test, data);
        if (matched === undefined) res.errors.push(fail('pattern', path, `should match '${s.pattern}', but is too long to be matched against it in bounded time`, data));
        else if (!matched) res.errors.push(fail('pattern', path, `should match '${s.pattern}'`, data));
      }
    }
  }

  private numberChecks(s: JSONSchemaProps, data: number, path: string, res: Result): void {
    const isInt = isGoInt(data);
    if (typeof s.multipleOf === 'number') {
      const factor = isInt ? Math.trunc(s.multipleOf) : s.multipleOf;
      if (factor <= 0) {
        const shown = isInt ? goNumber(factor) : goFloat(factor);
        res.errors.push({ code: 'multipleOfMustBePositive', name: path, value: factor, message: `factor MultipleOf declared for ${path} must be positive: ${shown}` });
      } else {
        const ok = isInt ? data % factor === 0 : isJSONInteger(factor < 1 ? (1 / factor) * data : data / factor);
        if (!ok) res.errors.push(fail('multipleOf', path, `should be a multiple of ${isInt ? goNumber(factor) : goFloat(factor)}`, data));
      }
    }
    if (typeof s.minimum === 'number') {
      const min = isInt ? Math.trunc(s.minimum) : s.minimum;
      const ex = s.exclusiveMinimum === true;
      if ((!ex && data < min) || (ex && data <= min)) {
        res.errors.push(fail('min', path, `should be greater than ${ex ? '' : 'or equal to '}${boundText(s.minimum, isInt)}`, data));
      }
    }
    if (typeof s.maximum === 'number') {
      const max = isInt ? Math.trunc(s.maximum) : s.maximum;
      const ex = s.exclusiveMaximum === true;
      if ((!ex && data > max) || (ex && data >= max)) {
        res.errors.push(fail('max', path, `should be less than ${ex ? '' : 'or equal to '}${boundText(s.maximum, isInt)}`, data));
      }
    }
  }

  private arrayChecks(s: JSONSchemaProps, data: unknown[], path: string, res: Result): void {
    const items = asSchema(s.items);
    if (items) {
      for (let i = 0; i < data.length; i++) merge(res, this.validate(items, data[i], `${path}[${i}]`));
    } else if (Array.isArray(s.items)) {
      const list = schemaList(s.items);
      for (let i = 0; i < list.length && i < data.length; i++) merge(res, this.validate(list[i], data[i], `${path}[${i}]`));
    }
    if (typeof s.minItems === 'number' && data.length < s.minItems) {
      res.errors.push(fail('minItems', path, `should have at least ${s.minItems} items`, data.length, { valid: s.minItems }));
    }
    if (typeof s.maxItems === 'number' && data.length > s.maxItems) {
      res.errors.push(fail('maxItems', path, `should have at most ${s.maxItems} items`, data.length, { valid: s.maxItems }));
    }
    if (s.uniqueItems === true) {
      const seen = new Set<string>();
      for (const x of data) {
        const k = canonicalJSON(x);
        if (seen.has(k)) {
          res.errors.push(fail('unique', path, "shouldn't contain duplicates"));
          break;
        }
        seen.add(k);
      }
    }
  }

  private enumCheck(s: JSONSchemaProps, data: unknown, path: string, res: Result): void {
    if (!Array.isArray(s.enum) || s.enum.length === 0) return;
    if (data !== null && enumSet(s.enum).has(canonicalJSON(data))) return;
    const shown = s.enum.map((v) => goEnumValue(v)).join(' ');
    res.errors.push(fail('enum', path, `should be one of [${shown}]`, data, { values: s.enum }));
  }

  private objectChecks(s: JSONSchemaProps, data: Record<string, unknown>, path: string, res: Result): void {
    const keys = Object.keys(data);
    if (typeof s.minProperties === 'number' && keys.length < s.minProperties) {
      res.errors.push(fail('tooFewProperties', path, `should have at least ${s.minProperties} properties`, keys.length, { valid: s.minProperties }));
      return;
    }
    if (typeof s.maxProperties === 'number' && keys.length > s.maxProperties) {
      res.errors.push(fail('tooManyProperties', path, `should have at most ${s.maxProperties} properties`, keys.length, { valid: s.maxProperties }));
      return;
    }
    const props = asSchema(s.properties) as Record<string, JSONSchemaProps> | undefined;
    const extra = s.additionalProperties;
    if (extra === false) {
      for (const k of keys) {
        if (!props || getOwn(props, k) === undefined) res.errors.push(fail('unallowedProperty', `${path}.${k}`, 'is a forbidden property', k));
      }
    } else {
      const extraSchema = asSchema(extra);
      if (extraSchema) {
        for (const k of keys) {
          if (!props || getOwn(props, k) === undefined) merge(res, this.validate(extraSchema, data[k], `${path}.${k}`));
        }
      }
    }
    if (props) {
      for (const name of Object.keys(props)) {
        const ps = asSchema(props[name]);
        if (ps && Object.hasOwn(data, name)) merge(res, this.validate(ps, data[name], path ? `${path}.${name}` : name));
      }
    }
    if (Array.isArray(s.required)) {
      for (const k of s.required) {
        if (typeof k === 'string' && !Object.hasOwn(data, k)) res.errors.push(fail('required', `${path}.${k}`, 'is required'));
      }
    }
  }
}

const enumSets = new WeakMap<unknown[], Set<string>>();

/** The enum as canonical texts, built once per schema: a lookup costs the size of the value, not of the enum. */
function enumSet(values: unknown[]): Set<string> {
  let set = enumSets.get(values);
  if (!set) {
    set = new Set(values.map(canonicalJSON));
    enumSets.set(values, set);
  }
  return set;
}

/** Go's `%v` of one enum value inside a list. */
function goEnumValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (v === null) return '<nil>';
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goEnumValue).join(' ')}]`;
  const r = v as Record<string, unknown>;
  return `map[${Object.keys(r).sort().map((k) => `${k}:${goEnumValue(r[k])}`).join(' ')}]`;
}

function merge(into: Result, from: Result): void {
  for (const e of from.errors) into.errors.push(e);
  into.matches += from.matches;
}

/** The field errors for the OpenAPI errors, as apiextensions converts them under `fldPath` (null: none). */
function toFieldErrors(errors: OpenAPIError[], fldPath: string | null): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    // The validator reports each message once.
    if (seen.has(e.message)) continue;
    seen.add(e.message);
    if (e.code === 'composite') {
      out.push(fieldInvalid(fldPath ?? '<nil>', '', e.message));
      continue;
    }
    const name = e.name.startsWith('.') ? e.name.slice(1) : e.name;
    const field = e.name !== '' && e.name !== '.' ? child(fldPath ?? '', name) : (fldPath ?? '<nil>');
    const value = e.value ?? '';
    switch (e.code) {
      case 'required':
        out.push(fieldRequired(field));
        break;
      case 'enum':
        out.push(fieldNotSupported(field, e.value, (e.values ?? []).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))));
        break;
      case 'tooLong':
        out.push(fieldTooLong(field, e.valid ?? -1));
        break;
      case 'maxItems':
      case 'tooManyProperties':
        out.push(fieldTooMany(field, typeof e.value === 'number' ? e.value : -1, e.valid ?? -1));
        break;
      case 'type':
        out.push(fieldTypeInvalid(field, value, e.message));
        break;
      default:
        out.push(fieldInvalid(field, value, e.message));
    }
  }
  return out;
}

/** The OpenAPI validation of a value, as field errors under `fldPath` (null for an object's root). */
export function openAPIErrors(schema: JSONSchemaProps, data: unknown, fldPath: string | null): FieldError[] {
  return toFieldErrors(new Validator().validate(schema, data, '').errors, fldPath);
}

// ---------------------------------------------------------------------------------------
// Embedded resources

function parseGroupVersionError(gv: string): string | undefined {
  if (gv === '' || gv === '/') return undefined;
  const parts = gv.split('/');
  if (parts.length === 1 || parts.length === 2) return undefined;
  return `unexpected GroupVersion string: ${gv}`;
}

function objectMetaErrors(meta: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (meta === null) return errs;
  if (typeof meta !== 'object' || Array.isArray(meta)) {
    const t = Array.isArray(meta) ? 'array' : typeof meta === 'number' ? 'number' : typeof meta === 'boolean' ? 'bool' : 'string';
    return [fieldInvalid(path, meta, `json: cannot unmarshal ${t} into Go value of type v1.ObjectMeta`)];
  }
  const m = meta as Record<string, unknown>;
  const str = (k: string): string => (typeof m[k] === 'string' ? (m[k] as string) : '');
  const name = str('name') || 'fakename';
  const generateName = str('generateName');
  const namespace = str('namespace');
  if (generateName) {
    for (const msg of pathSegmentErrors(generateName, true)) errs.push(fieldInvalid(child(path, 'generateName'), generateName, msg));
  }
  for (const msg of pathSegmentErrors(name, false)) errs.push(fieldInvalid(child(path, 'name'), name, msg));
  if (namespace) for (const msg of isDNS1123Label(namespace)) errs.push(fieldInvalid(child(path, 'namespace'), namespace, msg));
  const labels = m.labels;
  if (labels !== null && typeof labels === 'object' && !Array.isArray(labels)) {
    for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
      for (const msg of isQualifiedName(k)) errs.push(fieldInvalid(child(path, 'labels'), k, msg));
      if (typeof v === 'string') for (const msg of isValidLabelValue(v)) errs.push(fieldInvalid(child(path, 'labels'), v, msg));
    }
  }
  const annotations = m.annotations;
  if (annotations !== null && typeof annotations === 'object' && !Array.isArray(annotations)) {
    for (const k of Object.keys(annotations)) {
      for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldInvalid(child(path, 'annotations'), k, msg));
    }
  }
  return errs;
}

function pathSegmentErrors(name: string, prefix: boolean): string[] {
  const errs: string[] = [];
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  for (const c of ['/', '%']) if (name.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

function embeddedErrors(x: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(fieldRequired(child(path, 'apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(x, 'kind')) errs.push(fieldRequired(child(path, 'kind'), 'must not be empty'));
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (k === 'apiVersion') {
      const p = child(path, 'apiVersion');
      if (typeof v !== 'string') errs.push(fieldInvalid(p, v, 'must be a string'));
      else if (v === '') errs.push(fieldInvalid(p, v, 'must not be empty'));
      else {
        const e = parseGroupVersionError(v);
        if (e) errs.push(fieldInvalid(p, v, e));
      }
    } else if (k === 'kind') {
      const p = child(path, 'kind');
      if (typeof v !== 'string') errs.push(fieldInvalid(p, v, 'must be a string'));
      else if (v === '') errs.push(fieldInvalid(p, v, 'must not be empty'));
      else {
        const e = isDNS1035Label(v.toLowerCase());
        if (e.length > 0) errs.push(fieldInvalid(p, v, `may have mixed case, but should otherwise match: ${e.join(',')}`));
      }
    } else if (k === 'metadata') {
      for (const e of objectMetaErrors(v, child(path, 'metadata'))) errs.push(e);
    }
  }
  return errs;
}

/** Embedded resources' type and object metadata, everywhere below the root. */
export function embeddedResourceErrors(s: JSONSchemaProps | undefined, x: unknown, path: string, out: FieldError[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    const items = asSchema(s.items);
    for (let i = 0; i < x.length; i++) embeddedResourceErrors(items, x[i], `${path}[${i}]`, out);
    return;
  }
  if (x === null || typeof x !== 'object') return;
  const obj = x as Record<string, unknown>;
  if (s['x-kubernetes-embedded-resource'] === true) for (const e of embeddedErrors(obj, path)) out.push(e);
  const props = asSchema(s.properties) as Record<string, JSONSchemaProps> | undefined;
  const extra = asSchema(s.additionalProperties);
  for (const k of Object.keys(obj)) {
    const ps = props ? getOwn(props, k) : undefined;
    if (ps) embeddedResourceErrors(asSchema(ps), obj[k], child(path, k), out);
    else if (s.additionalProperties !== undefined) embeddedResourceErrors(extra, obj[k], key(path, k), out);
  }
}

// ---------------------------------------------------------------------------------------
// List types

function duplicateIndices(values: readonly unknown[]): number[] {
  if (values.length <= 1) return [];
  const counts = new Map<string, number>();
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const k = values[i] === UNSPECIFIED ? '\u0000unspecified' : canonicalJSON(values[i]);
    const n = counts.get(k) ?? 0;
    counts.set(k, n + 1);
    if (n === 1) out.push(i);
  }
  return out;
}

const UNSPECIFIED = Symbol('unspecified key');

function listMapErrors(s: JSONSchemaProps, list: unknown[], path: string): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && (typeof x !== 'object' || Array.isArray(x))) return [fieldInvalid(`${path}[${i}]`, x, 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'] : [];
  if (keys.length === 1) {
    const k = keys[0];
    const values = list.map((x) => (x === null || !Object.hasOwn(x as object, k) ? UNSPECIFIED : (x as Record<string, unknown>)[k]));
    return duplicateIndices(values).map((i) => fieldDuplicate(`${path}[${i}]`, values[i] === UNSPECIFIED ? {} : { [k]: values[i] }));
  }
  const values = list.map((x) => {
    const key: Record<string, unknown> = {};
    if (x !== null) for (const k of keys) if (Object.hasOwn(x as object, k)) key[k] = (x as Record<string, unknown>)[k];
    return key;
  });
  return duplicateIndices(values).map((i) => fieldDuplicate(`${path}[${i}]`, values[i]));
}

/** `x-kubernetes-list-type` set and map uniqueness, everywhere. */
export function listTypeErrors(s: JSONSchemaProps | undefined, x: unknown, path: string, out: FieldError[]): void {
  if (!s || x === null || typeof x !== 'object') return;
  if (Array.isArray(x)) {
    const lt = s['x-kubernetes-list-type'];
    if (lt === 'set') for (const i of duplicateIndices(x)) out.push(fieldDuplicate(`${path}[${i}]`, x[i]));
    else if (lt === 'map') for (const e of listMapErrors(s, x, path)) out.push(e);
    const items = asSchema(s.items);
    if (items) for (let i = 0; i < x.length; i++) listTypeErrors(items, x[i], `${path}[${i}]`, out);
    return;
  }
  const obj = x as Record<string, unknown>;
  const extra = asSchema(s.additionalProperties);
  const props = asSchema(s.properties) as Record<string, JSONSchemaProps> | undefined;
  for (const k of Object.keys(obj)) {
    if (extra) listTypeErrors(extra, obj[k], key(path, k), out);
    const ps = props ? getOwn(props, k) : undefined;
    if (ps) listTypeErrors(asSchema(ps), obj[k], child(path, k), out);
  }
}
