// The rules a version's `openAPIV3Schema` must meet, in apiextensions v1's words: the
// structural-schema invariants and completeness, the OpenAPI features CRDs do not support,
// the `x-kubernetes-*` extensions' consistency, and defaults that validate and survive pruning.
import type { FieldError } from '../../apimachinery/errors.js';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { getOwn } from '../../apimachinery/own.js';
import { child, errorText, fieldForbidden, fieldInvalid, fieldInvalidRendered, fieldNotSupported, fieldRequired, goStringList, key } from './go-format.js';
import { pruneResource } from './prune.js';
import { compileGoPattern } from './regex.js';
import { embeddedResourceErrors, openAPIErrors } from './value.js';

type Level = 'root' | 'item' | 'field';

function asSchema(v: unknown): JSONSchemaProps | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JSONSchemaProps) : undefined;
}

function schemaList(v: unknown): JSONSchemaProps[] {
  return Array.isArray(v) ? v.map((x) => asSchema(x) ?? {}) : [];
}

function propsOf(s: JSONSchemaProps): [string, JSONSchemaProps][] {
  const p = asSchema(s.properties) as Record<string, unknown> | undefined;
  return p ? Object.keys(p).map((k) => [k, asSchema(p[k]) ?? {}]) : [];
}

function propOf(s: JSONSchemaProps, name: string): JSONSchemaProps | undefined {
  const p = asSchema(s.properties) as Record<string, JSONSchemaProps> | undefined;
  return p ? asSchema(getOwn(p, name)) : undefined;
}

function typeOf(s: JSONSchemaProps): string {
  return typeof s.type === 'string' ? s.type : '';
}

function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

/** A branch that is exactly `{type: t}`. */
function isOnlyType(s: JSONSchemaProps, t: string): boolean {
  return typeOf(s) === t && Object.keys(s).every((k) => k === 'type' || isEmptyValue((s as Record<string, unknown>)[k]));
}

function isIntOrStringAnyOf(list: JSONSchemaProps[]): boolean {
  return list.length === 2 && isOnlyType(list[0], 'integer') && isOnlyType(list[1], 'string');
}

// ---------------------------------------------------------------------------------------
// Structural invariants (Kubernetes sorts these by their text)

function structuralInvariants(s: JSONSchemaProps, lvl: Level, path: string, out: FieldError[]): void {
  const type = typeOf(s);
  const items = asSchema(s.items);
  if (type === 'array' && s.items === undefined) out.push(fieldRequired(child(path, 'items'), 'must be specified'));
  if (items) structuralInvariants(items, 'item', child(path, 'items'), out);
  for (const [k, v] of propsOf(s)) structuralInvariants(v, 'field', key(child(path, 'properties'), k), out);
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (lvl === 'root') out.push(fieldForbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    const ap = asSchema(s.additionalProperties);
    if (ap) structuralInvariants(ap, 'field', child(path, 'additionalProperties'), out);
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) out.push(fieldInvalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) out.push(fieldInvalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));

  const anyOf = schemaList(s.anyOf);
  const allOf = schemaList(s.allOf);
  const skipAnyOf = isIntOrStringAnyOf(anyOf);
  const skipFirstAllOfAnyOf = allOf.length >= 1 && isIntOrStringAnyOf(schemaList(allOf[0].anyOf));
  valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, path, out);

  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    if (type === '') out.push(fieldRequired(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else out.push(fieldInvalid(child(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const detail = lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    out.push(fieldRequired(child(path, 'type'), detail));
  }
  if (embedded && s.additionalProperties !== undefined && s.additionalProperties !== null) {
    out.push(fieldForbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && type !== '' && type !== 'object') out.push(fieldInvalid(child(path, 'type'), type, 'must be object at the root'));
  const props = child(path, 'properties');
  for (const name of ['kind', 'apiVersion']) {
    const p = propOf(s, name);
    if (p && checkMetadata && typeOf(p) !== 'string') out.push(fieldInvalid(child(key(props, name), 'type'), typeOf(p), 'must be string'));
  }
  const metadata = propOf(s, 'metadata');
  if (metadata) {
    const mpath = key(props, 'metadata');
    if (checkMetadata && typeOf(metadata) !== 'object') out.push(fieldInvalid(child(mpath, 'type'), typeOf(metadata), 'must be object'));
    if (lvl === 'root' && !metadataOnlyNames(metadata)) {
      out.push(fieldForbidden(mpath, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  if (embedded && !preserve && propsOf(s).length === 0) {
    out.push(fieldRequired(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

/** What a structural schema keeps of a node (other keys, such as `example`, do not count). */
const STRUCTURAL_KEYS = [
  'description', 'title', 'nullable', 'additionalProperties', 'items', 'format', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum',
  'maxProperties', 'minProperties', 'required', 'allOf', 'oneOf', 'anyOf', 'not', 'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type',
  'x-kubernetes-map-type', 'x-kubernetes-validations',
] as const;

/** The root's metadata may say its type and default and restrict name and generateName, nothing else. */
function metadataOnlyNames(m: JSONSchemaProps): boolean {
  const names = propsOf(m).map(([k]) => k);
  const onlyNames = names.length === 0 || (names.length <= 2 && names.every((n) => n === 'name' || n === 'generateName') && new Set(names).size === names.length);
  if (!onlyNames) return false;
  const open = m as Record<string, unknown>;
  return STRUCTURAL_KEYS.every((k) => isEmptyValue(open[k]) || (k === 'nullable' && open[k] === false));
}

function valueValidation(v: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string, out: FieldError[]): void {
  if (!skipAnyOf) schemaList(v.anyOf).forEach((x, i) => nestedValueValidation(x, false, false, `${child(path, 'anyOf')}[${i}]`, out));
  schemaList(v.allOf).forEach((x, i) => nestedValueValidation(x, skipFirstAllOfAnyOf && i === 0, false, `${child(path, 'allOf')}[${i}]`, out));
  schemaList(v.oneOf).forEach((x, i) => nestedValueValidation(x, false, false, `${child(path, 'oneOf')}[${i}]`, out));
  const not = asSchema(v.not);
  if (not) nestedValueValidation(not, false, false, child(path, 'not'), out);
  if (typeof v.pattern === 'string' && v.pattern !== '') {
    const c = compileGoPattern(v.pattern);
    if (!c.ok) out.push(fieldInvalid(child(path, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${c.error}`));
  }
}

function nestedValueValidation(v: JSONSchemaProps, skipAnyOf: boolean, skipAllOfAnyOf: boolean, path: string, out: FieldError[]): void {
  valueValidation(v, skipAnyOf, skipAllOfAnyOf, path, out);
  const items = asSchema(v.items);
  if (items) nestedValueValidation(items, false, false, child(path, 'items'), out);
  for (const [k, p] of propsOf(v)) nestedValueValidation(p, false, false, key(child(path, 'properties'), k), out);
  const forbid = (name: string, detail: string): void => {
    out.push(fieldForbidden(child(path, name), detail));
  };
  if (typeOf(v) !== '') forbid('type', 'must be empty to be structural');
  if (v.additionalProperties !== undefined && v.additionalProperties !== null) forbid('additionalProperties', 'must be undefined to be structural');
  if (v.default !== undefined && v.default !== null) forbid('default', 'must be undefined to be structural');
  if (typeof v.title === 'string' && v.title !== '') forbid('title', 'must be empty to be structural');
  if (typeof v.description === 'string' && v.description !== '') forbid('description', 'must be empty to be structural');
  if (v.nullable === true) forbid('nullable', 'must be false to be structural');
  if (v['x-kubernetes-preserve-unknown-fields'] === true) forbid('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
  if (v['x-kubernetes-embedded-resource'] === true) forbid('x-kubernetes-embedded-resource', 'must be false to be structural');
  if (v['x-kubernetes-int-or-string'] === true) forbid('x-kubernetes-int-or-string', 'must be false to be structural');
  if (Array.isArray(v['x-kubernetes-list-map-keys']) && v['x-kubernetes-list-map-keys'].length > 0) forbid('x-kubernetes-list-map-keys', 'must be empty to be structural');
  if (v['x-kubernetes-list-type'] !== undefined && v['x-kubernetes-list-type'] !== null) forbid('x-kubernetes-list-type', 'must be undefined to be structural');
  if (v['x-kubernetes-map-type'] !== undefined && v['x-kubernetes-map-type'] !== null) forbid('x-kubernetes-map-type', 'must be undefined to be structural');
  if (Array.isArray(v['x-kubernetes-validations']) && v['x-kubernetes-validations'].length > 0) forbid('x-kubernetes-validations', 'must be empty to be structural');
  if (propOf(v, 'metadata')) out.push(fieldForbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
}

// ---------------------------------------------------------------------------------------
// Completeness: everything a value validation names is specified structurally too

function completeness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: string, vPath: string, out: FieldError[]): void {
  if (!s) {
    out.push(fieldRequired(sPath, `because it is defined in ${vPath}`));
    return;
  }
  const not = asSchema(v.not);
  if (not) nestedCompleteness(not, s, sPath, child(vPath, 'not'), out);
  schemaList(v.allOf).forEach((x, i) => nestedCompleteness(x, s, sPath, `${child(vPath, 'allOf')}[${i}]`, out));
  schemaList(v.anyOf).forEach((x, i) => nestedCompleteness(x, s, sPath, `${child(vPath, 'anyOf')}[${i}]`, out));
  schemaList(v.oneOf).forEach((x, i) => nestedCompleteness(x, s, sPath, `${child(vPath, 'oneOf')}[${i}]`, out));
}

function nestedCompleteness(v: JSONSchemaProps, s: JSONSchemaProps, sPath: string, vPath: string, out: FieldError[]): void {
  completeness(v, s, sPath, vPath, out);
  const items = asSchema(v.items);
  if (items) {
    const sItems = asSchema(s.items);
    if (!sItems) out.push(fieldRequired(child(sPath, 'items'), `because it is defined in ${child(vPath, 'items')}`));
    else nestedCompleteness(items, sItems, child(sPath, 'items'), child(vPath, 'items'), out);
  }
  for (const [k, p] of propsOf(v)) {
    const sp = propOf(s, k);
    const sKey = key(child(sPath, 'properties'), k);
    const vKey = key(child(vPath, 'properties'), k);
    if (!sp) out.push(fieldRequired(sKey, `because it is defined in ${vKey}`));
    else nestedCompleteness(p, sp, sKey, vKey, out);
  }
}

// ---------------------------------------------------------------------------------------
// Features CRDs refuse and extension consistency (ValidateCustomResourceDefinitionOpenAPISchema)

interface Context {
  allowDefaults: boolean;
  defaultsReason: string;
  insideResourceMeta: boolean;
}

const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

function openAPISchema(s: JSONSchemaProps, path: string, ctx: Context, isRoot: boolean, out: FieldError[]): void {
  const type = typeOf(s);
  const open = s as Record<string, unknown>;
  const validTypes = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
  if (type !== '' && !validTypes.includes(type)) out.push(fieldNotSupported(child(path, 'type'), type, validTypes));
  if (s.default !== undefined && s.default !== null && !ctx.allowDefaults) {
    out.push(fieldForbidden(child(path, 'default'), ctx.defaultsReason ? `must not be set ${ctx.defaultsReason}` : 'must not be set'));
  }
  if (typeof s.id === 'string' && s.id !== '') out.push(fieldForbidden(child(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined && s.additionalItems !== null) out.push(fieldForbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (!isEmptyValue(s.patternProperties)) out.push(fieldForbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  if (!isEmptyValue(s.definitions)) out.push(fieldForbidden(child(path, 'definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined && s.dependencies !== null) out.push(fieldForbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (open.$ref !== undefined && open.$ref !== null) out.push(fieldForbidden(child(path, '$ref'), '$ref is not supported'));
  if (type === 'null') out.push(fieldForbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) out.push(fieldForbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    out.push(fieldForbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  if (s.uniqueItems === true) out.push(fieldForbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));

  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (propsOf(s).length > 0 && (s.additionalProperties === false || asSchema(s.additionalProperties))) {
      out.push(fieldForbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    const ap = asSchema(s.additionalProperties);
    const sub = ctx.insideResourceMeta ? { ...ctx, allowDefaults: false, defaultsReason: 'inside additionalProperties applying to object metadata' } : ctx;
    if (ap) openAPISchema(ap, child(path, 'additionalProperties'), sub, false, out);
  }
  for (const [k, p] of propsOf(s)) {
    let sub = ctx;
    if ((isRoot || embedded) && META_FIELDS.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, defaultsReason: `in top-level ${k}` };
    }
    openAPISchema(p, key(child(path, 'properties'), k), sub, false, out);
  }
  const not = asSchema(s.not);
  if (not) openAPISchema(not, child(path, 'not'), ctx, false, out);
  schemaList(s.allOf).forEach((x, i) => openAPISchema(x, `${child(path, 'allOf')}[${i}]`, ctx, false, out));
  schemaList(s.oneOf).forEach((x, i) => openAPISchema(x, `${child(path, 'oneOf')}[${i}]`, ctx, false, out));
  schemaList(s.anyOf).forEach((x, i) => openAPISchema(x, `${child(path, 'anyOf')}[${i}]`, ctx, false, out));
  const defs = asSchema(s.definitions) as Record<string, unknown> | undefined;
  if (defs) for (const k of Object.keys(defs)) openAPISchema(asSchema(defs[k]) ?? {}, key(child(path, 'definitions'), k), ctx, false, out);
  const items = asSchema(s.items);
  if (items) openAPISchema(items, child(path, 'items'), ctx, false, out);
  if (Array.isArray(s.items)) schemaList(s.items).forEach((x, i) => openAPISchema(x, `${child(path, 'items')}[${i}]`, ctx, false, out));
  const deps = asSchema(s.dependencies) as Record<string, unknown> | undefined;
  if (deps) for (const k of Object.keys(deps)) { const d = asSchema(deps[k]); if (d) openAPISchema(d, key(child(path, 'dependencies'), k), ctx, false, out); }

  if (s['x-kubernetes-preserve-unknown-fields'] === false) out.push(fieldInvalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  extensionRules(s, path, out);
}

function extensionRules(s: JSONSchemaProps, path: string, out: FieldError[]): void {
  const type = typeOf(s);
  const mapType = s['x-kubernetes-map-type'];
  const listType = s['x-kubernetes-list-type'];
  const mapKeys = Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'] : [];
  if (mapType !== undefined && mapType !== null && type !== 'object') {
    if (type === '') out.push(fieldRequired(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else out.push(fieldInvalid(child(path, 'type'), type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== null && mapType !== 'atomic' && mapType !== 'granular') {
    out.push(fieldNotSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  const items = asSchema(s.items);
  if (listType !== undefined && listType !== null && type !== 'array') {
    if (type === '') out.push(fieldRequired(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else out.push(fieldInvalid(child(path, 'type'), type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    const itemType = typeOf(items);
    const itemsPath = child(path, 'items');
    if (itemType === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      out.push(fieldInvalid(child(itemsPath, 'x-kubernetes-list-type'), items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    } else if (itemType === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // Kubernetes shows the items' list type here, a pointer that is usually unset.
      const lt = items['x-kubernetes-list-type'];
      out.push(fieldInvalidRendered(child(itemsPath, 'x-kubernetes-map-type'), lt === undefined ? 'null' : JSON.stringify(lt), 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && listType !== null && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    out.push(fieldNotSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  if (mapKeys.length > 0) {
    if (listType === undefined || listType === null) out.push(fieldRequired(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') out.push(fieldInvalid(child(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) out.push(fieldRequired(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined || s.items === null) out.push(fieldRequired(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(s.items)) out.push(fieldInvalid(child(path, 'items'), s.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    if (items && typeOf(items) !== 'object') out.push(fieldInvalid(child(child(path, 'items'), 'type'), typeOf(items), "must be object if parent array's x-kubernetes-list-type is map"));
    if (items && typeOf(items) === 'object') {
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const p = propOf(items, String(k));
        if (p) {
          if (typeOf(p) === 'array' || typeOf(p) === 'object') {
            out.push(fieldInvalid(child(key(child(child(path, 'items'), 'properties'), String(k)), 'type'), typeOf(items), "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          out.push(fieldInvalidRendered(child(path, 'x-kubernetes-list-map-keys'), goStringList(mapKeys.map(String)), 'entries must all be names of item properties'));
        }
        if (seen.has(String(k))) out.push(fieldInvalidRendered(child(path, 'x-kubernetes-list-map-keys'), goStringList(mapKeys.map(String)), 'must not contain duplicate entries'));
        seen.add(String(k));
      }
    }
  }
  // Set and map items cannot be null; map keys must be required or defaulted.
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true) out.push(fieldForbidden(child(child(path, 'items'), 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
    if (listType === 'map') {
      const required = new Set(Array.isArray(items.required) ? items.required : []);
      for (const k of mapKeys) {
        const p = propOf(items, String(k));
        if (!p) continue;
        const at = key(child(child(path, 'items'), 'properties'), String(k));
        if (!required.has(String(k)) && (p.default === undefined || p.default === null)) {
          out.push(fieldRequired(child(at, 'default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        }
        if (p.nullable === true) out.push(fieldForbidden(child(at, 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
  const rules = s['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    rules.forEach((r, i) => {
      const at = `${child(path, 'x-kubernetes-validations')}[${i}]`;
      const rule = typeof r?.rule === 'string' ? r.rule : '';
      const message = typeof r?.message === 'string' ? r.message : '';
      const messageExpression = typeof r?.messageExpression === 'string' ? r.messageExpression : '';
      const trimmedMsg = message.trim();
      if (rule.trim() === '') out.push(fieldRequired(child(at, 'rule'), 'rule is not specified'));
      else if (message.length > 0 && trimmedMsg.length === 0) out.push(fieldInvalid(child(at, 'message'), message, 'message must be non-empty if specified'));
      else if (/[\n\r]/.test(trimmedMsg)) out.push(fieldInvalid(child(at, 'message'), message, 'message must not contain line breaks'));
      else if (/[\n\r]/.test(rule.trim()) && trimmedMsg.length === 0) out.push(fieldRequired(child(at, 'message'), 'message must be specified if rule contains line breaks'));
      if (messageExpression.length > 0 && messageExpression.trim().length === 0) out.push(fieldRequired(child(at, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    });
  }
}

// ---------------------------------------------------------------------------------------
// Unsupported fields (the structural conversion's errors, shown when nothing else is wrong)

function unsupported(s: JSONSchemaProps): string | undefined {
  const o = s as Record<string, unknown>;
  if (typeof s.id === 'string' && s.id !== '') return "OpenAPIV3Schema 'id' is not supported";
  if (typeof o.$schema === 'string' && o.$schema !== '') return "OpenAPIV3Schema 'schema' is not supported";
  if (typeof o.$ref === 'string' && o.$ref !== '') return "OpenAPIV3Schema '$ref' is not supported";
  if (!isEmptyValue(s.patternProperties)) return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (!isEmptyValue(s.dependencies)) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (s.additionalItems !== undefined && s.additionalItems !== null) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (!isEmptyValue(s.definitions)) return "OpenAPIV3Schema 'definitions' is not supported";
  if (Array.isArray(s.items) && s.items.length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const subs: JSONSchemaProps[] = [...schemaList(s.allOf), ...schemaList(s.anyOf), ...schemaList(s.oneOf), ...propsOf(s).map(([, p]) => p)];
  for (const one of [s.not, s.items, s.additionalProperties]) { const x = asSchema(one); if (x) subs.push(x); }
  for (const x of subs) {
    const e = unsupported(x);
    if (e) return e;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Defaults: valid against their schema, unchanged by pruning

function defaults(s: JSONSchemaProps, path: string, insideMeta: boolean, out: FieldError[]): void {
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (embedded) insideMeta = false;
  if (s.default !== undefined && s.default !== null) {
    const d = s.default;
    const at = child(path, 'default');
    const errs: FieldError[] = [];
    if (!insideMeta) {
      const pruned = structuredClone(d);
      if (pruned !== null && typeof pruned === 'object' && !Array.isArray(pruned)) {
        if (embedded) pruneResource(pruned as Record<string, unknown>, s);
        else pruneValue(pruned, s);
      } else if (Array.isArray(pruned)) pruneValue(pruned, s);
      if (JSON.stringify(pruned) !== JSON.stringify(d)) out.push(fieldInvalid(at, d, 'must not have unknown fields'));
      embeddedResourceErrors(s, d, at, errs);
    }
    for (const e of errs.length > 0 ? errs : openAPIErrors(s, d, at)) out.push(e);
  }
  const items = asSchema(s.items);
  if (items) defaults(items, child(path, 'items'), insideMeta, out);
  for (const [k, p] of propsOf(s)) defaults(p, key(child(path, 'properties'), k), insideMeta || (embedded && META_FIELDS.has(k)), out);
}

/** Prunes a non-resource value against its schema (the default of a field). */
function pruneValue(x: unknown, s: JSONSchemaProps): void {
  // A value is pruned as the field of a resource would be: wrap it and prune the wrapper.
  const wrapper: Record<string, unknown> = { v: x };
  pruneResource(wrapper, { type: 'object', properties: { v: s } });
}

/** Every problem of a version's schema (see index.ts). */
export function validateSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (schema.nullable === true) errs.push(fieldForbidden(child(path, 'nullable'), 'nullable cannot be true at the root'));
  const initError = unsupported(schema);
  const structural: FieldError[] = [];
  if (!initError) {
    structuralInvariants(schema, 'root', path, structural);
    completeness(schema, schema, path, path, structural);
    structural.sort((a, b) => (errorText(a) < errorText(b) ? -1 : errorText(a) > errorText(b) ? 1 : 0));
    for (const e of structural) errs.push(e);
    if (structural.length === 0) {
      // The root is a resource: its defaults are checked with apiVersion and kind kept.
      const root = schema['x-kubernetes-embedded-resource'] === true ? schema : { ...schema, 'x-kubernetes-embedded-resource': true };
      defaults(root, path, false, errs);
    }
  }
  openAPISchema(schema, path, { allowDefaults: true, defaultsReason: '', insideResourceMeta: false }, true, errs);
  if (errs.length === 0 && initError) errs.push(fieldInvalid(path, '', initError));
  return errs;
}
