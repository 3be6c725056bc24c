// apiextensions v1 validation of a CustomResourceDefinition, with Kubernetes' field paths
// and messages. Kubernetes validates its internal form: when every version carries the same
// schema, subresources or printer columns, they are moved to `spec.validation`,
// `spec.subresources` and `spec.additionalPrinterColumns` first, and `spec.version` is the
// first version's name; errors name those paths, so they are reproduced here.
import {
  forbiddenField,
  invalidField,
  notSupportedField,
  requiredField,
  type FieldError,
} from '../../apimachinery/errors.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { canonicalSchema, type JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { getOwn } from '../../apimachinery/own.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../apimachinery/labels.js';
import { compileValidations } from '../../schema/cel/index.js';
import { validateVersionSchema } from '../../schema/crd/index.js';
import { arr, at, meta, obj, objs, str, type JsonObject } from '../util.js';
import { immutable } from '../validation.js';
import { apiApprovedAnnotation, isConditionTrue, isProtectedCommunityGroup } from './crd.js';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

interface Options {
  requireRecognizedConversionReviewVersion: boolean;
  requireImmutableNames: boolean;
  requireOpenAPISchema: boolean;
}

/** A Go `[]string` as `%#v` prints it in an Invalid value. */
function goStrings(list: unknown): string {
  if (!Array.isArray(list)) return '[]string(nil)';
  return `[]string{${list.map((s) => JSON.stringify(String(s))).join(', ')}}`;
}

function invalidRaw(field: string, rendered: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${rendered}: ${detail}` };
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** The definition's spec as Kubernetes' internal form sees it (see the file comment). */
interface InternalSpec {
  versions: JsonObject[];
  /** `spec.validation` (a version's `schema`), when every version has the same one. */
  validation: JsonObject | undefined;
  subresources: JsonObject | undefined;
  columns: JsonObject[];
  /** Whether each per-version field stays on the versions. */
  perVersionSchema: boolean;
  perVersionSubresources: boolean;
  perVersionColumns: boolean;
  preserveUnknownFields: boolean;
}

function identical(versions: JsonObject[], key: string): boolean {
  const first = versions[0] ? getOwn(versions[0], key) ?? null : null;
  return versions.every((v) => deepEqual(getOwn(v, key) ?? null, first));
}

function internalSpec(spec: JsonObject): InternalSpec {
  const versions = objs(spec.versions);
  const sameSchema = versions.length > 0 && identical(versions, 'schema');
  const sameSubresources = versions.length > 0 && identical(versions, 'subresources');
  const sameColumns = versions.length > 0 && identical(versions, 'additionalPrinterColumns');
  return {
    versions,
    validation: sameSchema ? obj(versions[0]?.schema) : undefined,
    subresources: sameSubresources ? obj(versions[0]?.subresources) : undefined,
    columns: sameColumns ? objs(versions[0]?.additionalPrinterColumns) : [],
    perVersionSchema: !sameSchema,
    perVersionSubresources: !sameSubresources,
    perVersionColumns: !sameColumns,
    preserveUnknownFields: spec.preserveUnknownFields === true,
  };
}

function schemaOf(validation: JsonObject | undefined): JsonObject | undefined {
  return obj(validation?.openAPIV3Schema);
}

/** Every schema of the spec (the shared one, or each version's). */
function schemas(s: InternalSpec): JsonObject[] {
  const out: JsonObject[] = [];
  const top = schemaOf(s.validation);
  if (top) out.push(top);
  if (s.perVersionSchema) for (const v of s.versions) {
    const own = schemaOf(obj(v.schema));
    if (own) out.push(own);
  }
  return out;
}

/** Whether any node of a (canonical) schema tree satisfies `pred`. */
function schemaHas(node: unknown, pred: (s: JsonObject) => boolean): boolean {
  const s = obj(node);
  if (!s) return false;
  if (pred(s)) return true;
  const children: unknown[] = [s.not, s.additionalProperties, s.additionalItems];
  if (Array.isArray(s.items)) children.push(...s.items);
  else children.push(s.items);
  for (const key of ['allOf', 'oneOf', 'anyOf']) children.push(...arr(s[key]));
  for (const key of ['properties', 'patternProperties', 'definitions', 'dependencies']) {
    const m = obj(s[key]);
    if (m) children.push(...Object.values(m));
  }
  return children.some((c) => schemaHas(c, pred));
}

// ---------------------------------------------------------------------------------------
// Names

export function validateNames(names: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const plural = str(names.plural) ?? '';
  const singular = str(names.singular) ?? '';
  const kind = str(names.kind) ?? '';
  const listKind = str(names.listKind) ?? '';
  if (plural !== '') {
    const m = isDNS1035Label(plural);
    if (m.length > 0) errs.push(invalidField(`${path}.plural`, plural, m.join(',')));
  }
  if (singular !== '') {
    const m = isDNS1035Label(singular);
    if (m.length > 0) errs.push(invalidField(`${path}.singular`, singular, m.join(',')));
  }
  if (kind !== '') {
    const m = isDNS1035Label(kind.toLowerCase());
    if (m.length > 0) errs.push(invalidField(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${m.join(',')}`));
  }
  if (listKind !== '') {
    const m = isDNS1035Label(listKind.toLowerCase());
    if (m.length > 0) errs.push(invalidField(`${path}.listKind`, listKind, `may have mixed case, but should otherwise match: ${m.join(',')}`));
  }
  arr(names.shortNames).forEach((s, i) => {
    const m = isDNS1035Label(String(s));
    if (m.length > 0) errs.push(invalidField(`${path}.shortNames[${i}]`, s, m.join(',')));
  });
  if (kind !== '' && kind === listKind) errs.push(invalidField(`${path}.listKind`, listKind, 'kind and listKind may not be the same'));
  arr(names.categories).forEach((c, i) => {
    const m = isDNS1035Label(String(c));
    if (m.length > 0) errs.push(invalidField(`${path}.categories[${i}]`, c, m.join(',')));
  });
  return errs;
}

// ---------------------------------------------------------------------------------------
// Versions: deprecation, schema, subresources, printer columns

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function deprecationWarningProblems(deprecated: boolean, warning: unknown): string[] {
  if (!present(warning)) return [];
  if (!deprecated) return ['can only be set for deprecated versions'];
  const text = String(warning);
  const problems: string[] = [];
  if (Buffer.byteLength(text) > 256) problems.push('must be <= 256 characters long');
  if (text.length === 0) problems.push('must not be an empty string');
  let index = 0;
  for (const ch of text) {
    if (!PRINTABLE.test(ch)) {
      problems.push(`must only contain printable UTF-8 characters; non-printable character found at index ${index}`);
      break;
    }
    index += Buffer.byteLength(ch);
  }
  return problems;
}

/** The Go field names of a schema's root, in struct order, with their JSON keys. */
const ROOT_FIELDS: [string, string][] = [
  ['ID', 'id'], ['Schema', '$schema'], ['Ref', '$ref'], ['Description', 'description'], ['Type', 'type'],
  ['Nullable', 'nullable'], ['Format', 'format'], ['Title', 'title'], ['Default', 'default'], ['Maximum', 'maximum'],
  ['ExclusiveMaximum', 'exclusiveMaximum'], ['Minimum', 'minimum'], ['ExclusiveMinimum', 'exclusiveMinimum'],
  ['MaxLength', 'maxLength'], ['MinLength', 'minLength'], ['Pattern', 'pattern'], ['MaxItems', 'maxItems'],
  ['MinItems', 'minItems'], ['UniqueItems', 'uniqueItems'], ['MultipleOf', 'multipleOf'], ['Enum', 'enum'],
  ['MaxProperties', 'maxProperties'], ['MinProperties', 'minProperties'], ['Required', 'required'], ['Items', 'items'],
  ['AllOf', 'allOf'], ['OneOf', 'oneOf'], ['AnyOf', 'anyOf'], ['Not', 'not'], ['Properties', 'properties'],
  ['AdditionalProperties', 'additionalProperties'], ['PatternProperties', 'patternProperties'],
  ['Dependencies', 'dependencies'], ['AdditionalItems', 'additionalItems'], ['Definitions', 'definitions'],
  ['ExternalDocs', 'externalDocs'], ['Example', 'example'],
  ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'], ['XEmbeddedResource', 'x-kubernetes-embedded-resource'],
  ['XIntOrString', 'x-kubernetes-int-or-string'], ['XListMapKeys', 'x-kubernetes-list-map-keys'],
  ['XListType', 'x-kubernetes-list-type'], ['XMapType', 'x-kubernetes-map-type'], ['XValidations', 'x-kubernetes-validations'],
];

const ALLOWED_AT_ROOT = [
  'Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength',
  'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties',
  'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations',
];

/** A field Go would see as set: a non-empty string, true, or any other present value. */
function isSet(value: unknown): boolean {
  if (!present(value)) return false;
  if (typeof value === 'string') return value !== '';
  if (typeof value === 'boolean') return value;
  return true;
}

/** With a status subresource, the root may only hold what survives extracting `properties.status`. */
function validateRootForStatus(schema: JsonObject, path: string): FieldError[] {
  for (const [goName, key] of ROOT_FIELDS) {
    const value = getOwn(schema, key);
    if (!isSet(value)) continue;
    if (goName === 'Type') {
      if (value !== 'object') {
        return [invalidField(`${path}.openAPIV3Schema.type`, value, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      }
      continue;
    }
    if (!ALLOWED_AT_ROOT.includes(goName)) {
      return [invalidField(`${path}.openAPIV3Schema`, schema, `only [${ALLOWED_AT_ROOT.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`)];
    }
  }
  return [];
}

/** One `CustomResourceValidation` (`{openAPIV3Schema}`) at `path`. */
function validateValidation(validation: JsonObject | undefined, statusEnabled: boolean, path: string): FieldError[] {
  const raw = schemaOf(validation);
  if (!raw) return [];
  const schema = canonicalSchema(raw);
  const errs: FieldError[] = [];
  if (statusEnabled) errs.push(...validateRootForStatus(schema as JsonObject, path));
  const schemaPath = `${path}.openAPIV3Schema`;
  const structural = validateVersionSchema(schema, schemaPath);
  errs.push(...structural);
  // Rules are compiled only over a valid structural schema, as Kubernetes does.
  if (structural.length === 0) errs.push(...compileValidations(schema as JSONSchemaProps, schemaPath).errors);
  return errs;
}

function validateSimpleJSONPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [invalidField(path, s, 'must not be empty')];
  if (!s.startsWith('.')) return [invalidField(path, s, 'must be a simple json path starting with .')];
  return [];
}

export function validateSubresources(subresources: JsonObject | undefined, path: string): FieldError[] {
  const scale = obj(subresources?.scale);
  if (!scale) return [];
  const errs: FieldError[] = [];
  const spec = str(scale.specReplicasPath) ?? '';
  if (spec === '') errs.push(requiredField(`${path}.scale.specReplicasPath`));
  else {
    const e = validateSimpleJSONPath(spec, `${path}.scale.specReplicasPath`);
    if (e.length > 0) errs.push(...e);
    else if (!spec.startsWith('.spec.')) errs.push(invalidField(`${path}.scale.specReplicasPath`, spec, 'should be a json path under .spec'));
  }
  const status = str(scale.statusReplicasPath) ?? '';
  if (status === '') errs.push(requiredField(`${path}.scale.statusReplicasPath`));
  else {
    const e = validateSimpleJSONPath(status, `${path}.scale.statusReplicasPath`);
    if (e.length > 0) errs.push(...e);
    else if (!status.startsWith('.status.')) errs.push(invalidField(`${path}.scale.statusReplicasPath`, status, 'should be a json path under .status'));
  }
  const selector = str(scale.labelSelectorPath) ?? '';
  if (selector !== '') {
    const e = validateSimpleJSONPath(selector, `${path}.scale.labelSelectorPath`);
    if (e.length > 0) errs.push(...e);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) {
      errs.push(invalidField(`${path}.scale.labelSelectorPath`, selector, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

export function validateColumn(col: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(col.name)) errs.push(requiredField(`${path}.name`));
  const type = str(col.type) ?? '';
  if (type === '') errs.push(requiredField(`${path}.type`, `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
  else if (!PRINTER_COLUMN_TYPES.includes(type)) errs.push(invalidField(`${path}.type`, type, `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
  const format = str(col.format) ?? '';
  if (format !== '' && !PRINTER_COLUMN_FORMATS.includes(format)) {
    errs.push(invalidField(`${path}.format`, format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  }
  // The internal type spells the field `JSONPath`, and so do Kubernetes' messages.
  const jsonPath = str(col.jsonPath) ?? '';
  if (jsonPath === '') errs.push(requiredField(`${path}.JSONPath`));
  else errs.push(...validateSimpleJSONPath(jsonPath, `${path}.JSONPath`));
  return errs;
}

function hasStatus(subresources: JsonObject | undefined): boolean {
  return present(subresources?.status);
}

// ---------------------------------------------------------------------------------------
// Conversion

/** Go's url.Parse, as far as webhook validation looks at it. */
function parseGoURL(raw: string): { scheme: string; user?: string; host: string; query: string; fragment: string } | string {
  if ([...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return `parse ${JSON.stringify(raw)}: net/url: invalid control character in URL`;
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  if (rest.startsWith(':')) return `parse ${JSON.stringify(raw)}: missing protocol scheme`;
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  }
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    let authority = end >= 0 ? rest.slice(2, end) : rest.slice(2);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    host = authority;
  }
  return user === undefined ? { scheme, host, query, fragment } : { scheme, user, host, query, fragment };
}

const URL_FORM = '; desired format: https://host[/path]';

function validateWebhookURL(url: string, path: string): FieldError[] {
  const u = parseGoURL(url);
  if (typeof u === 'string') return [requiredField(path, `url must be a valid URL: ${u}${URL_FORM}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(invalidField(path, u.scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (u.host === '') errs.push(invalidField(path, u.host, `host must be provided${URL_FORM}`));
  if (u.user !== undefined) errs.push(invalidField(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') errs.push(invalidField(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query !== '') errs.push(invalidField(path, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

function validateWebhookService(service: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(service.name)) errs.push(requiredField(`${path}.name`, 'service name is required'));
  if (!str(service.namespace)) errs.push(requiredField(`${path}.namespace`, 'service namespace is required'));
  const port = service.port ?? 0;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    errs.push(invalidField(`${path}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  const urlPath = str(service.path);
  if (urlPath === undefined || urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') return [...errs, invalidField(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(invalidField(`${path}.path`, urlPath, "must start with a '/'"));
  let steps = urlPath.slice(1);
  if (steps.endsWith('/')) steps = steps.slice(0, -1);
  steps.split('/').forEach((step, i) => {
    if (step === '') errs.push(invalidField(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
    else for (const m of isDNS1123Subdomain(step)) errs.push(invalidField(`${path}.path`, urlPath, `segment[${i}]: ${m}`));
  });
  return errs;
}

function validateConversionReviewVersions(versions: unknown, requireRecognized: boolean, path: string): FieldError[] {
  const list = arr(versions).map(String);
  if (list.length === 0) return [requiredField(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let recognized = false;
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalidField(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(invalidField(`${path}[${i}]`, v, m));
    if (CONVERSION_REVIEW_VERSIONS.includes(v)) recognized = true;
  });
  if (requireRecognized && !recognized) {
    errs.push(invalidRaw(path, goStrings(list), `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

/** `spec.conversion`; the internal type names the webhook's fields `webhookClientConfig` and `conversionReviewVersions`. */
function validateConversion(conversion: JsonObject | undefined, requireRecognized: boolean, path: string): FieldError[] {
  if (!conversion) return [];
  const strategy = str(conversion.strategy) ?? '';
  const errs: FieldError[] = [];
  if (strategy === '') errs.push(requiredField(`${path}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(notSupportedField(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const webhook = obj(conversion.webhook);
  const clientConfig = obj(webhook?.clientConfig);
  const reviewVersions = webhook?.conversionReviewVersions;
  if (strategy === 'Webhook') {
    if (!clientConfig) errs.push(requiredField(`${path}.webhookClientConfig`, 'required when strategy is set to Webhook'));
    else {
      const url = str(clientConfig.url);
      const service = obj(clientConfig.service);
      if ((url === undefined) === (service === undefined)) {
        errs.push(requiredField(`${path}.webhookClientConfig`, 'exactly one of url or service is required'));
      } else if (url !== undefined) errs.push(...validateWebhookURL(url, `${path}.webhookClientConfig.url`));
      else if (service) errs.push(...validateWebhookService(service, `${path}.webhookClientConfig.service`));
    }
    errs.push(...validateConversionReviewVersions(reviewVersions, requireRecognized, `${path}.conversionReviewVersions`));
  } else {
    if (clientConfig) errs.push(forbiddenField(`${path}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
    if (arr(reviewVersions).length > 0) {
      errs.push(forbiddenField(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
    }
  }
  return errs;
}

function hasRecognizedReviewVersionOrEmpty(conversion: unknown): boolean {
  const list = arr(at(conversion, 'webhook.conversionReviewVersions')).map(String);
  return list.length === 0 || list.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v));
}

// ---------------------------------------------------------------------------------------
// The spec

function validateSpec(rawSpec: unknown, opts: Options, path: string): FieldError[] {
  const spec = obj(rawSpec) ?? {};
  const s = internalSpec(spec);
  const errs: FieldError[] = [];

  const group = str(spec.group) ?? '';
  if (group === '') errs.push(requiredField(`${path}.group`));
  else {
    const m = isDNS1123Subdomain(group);
    if (m.length > 0) errs.push(invalidField(`${path}.group`, group, m.join(',')));
    else if (!group.includes('.')) errs.push(invalidField(`${path}.group`, group, 'should be a domain with at least one dot'));
  }

  const scope = str(spec.scope) ?? '';
  if (scope === '') errs.push(requiredField(`${path}.scope`));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(notSupportedField(`${path}.scope`, scope, ['Cluster', 'Namespaced']));

  if (!schemaOf(s.validation)) {
    s.versions.forEach((v, i) => {
      const p = `${path}.versions[${i}].schema.openAPIV3Schema`;
      const has = schemaOf(obj(v.schema)) !== undefined;
      if (opts.requireOpenAPISchema) {
        if (!has) errs.push(requiredField(p, 'schemas are required'));
      } else if (!s.preserveUnknownFields && v.served === true && !has) {
        errs.push(requiredField(p, 'because otherwise all fields are pruned'));
      }
    });
  }
  const canonical = schemas(s).map((x) => canonicalSchema(x) as JsonObject);
  if (canonical.some((x) => schemaHas(x, (n) => n.default !== undefined)) && s.preserveUnknownFields) {
    errs.push(invalidField(`${path}.preserveUnknownFields`, true, 'must be false in order to use defaults in the schema'));
  }

  let storage = 0;
  const names = new Set<string>();
  let unique = true;
  s.versions.forEach((v, i) => {
    const p = `${path}.versions[${i}]`;
    const name = str(v.name) ?? '';
    if (v.storage === true) storage++;
    if (names.has(name)) unique = false;
    names.add(name);
    const m = isDNS1035Label(name);
    if (m.length > 0) errs.push(invalidField(`${p}.name`, name, m.join(',')));
    const subresources = s.perVersionSubresources ? obj(v.subresources) : s.subresources;
    for (const problem of deprecationWarningProblems(v.deprecated === true, v.deprecationWarning)) {
      errs.push(invalidField(`${p}.deprecationWarning`, v.deprecationWarning, problem));
    }
    if (s.perVersionSchema) errs.push(...validateValidation(obj(v.schema), hasStatus(subresources), `${p}.schema`));
    if (s.perVersionSubresources) errs.push(...validateSubresources(obj(v.subresources), `${p}.subresources`));
    if (s.perVersionColumns) {
      objs(v.additionalPrinterColumns).forEach((c, j) => errs.push(...validateColumn(c, `${p}.additionalPrinterColumns[${j}]`)));
    }
  });
  if (!unique) errs.push(invalidField(`${path}.versions`, s.versions, 'must contain unique version names'));
  if (storage !== 1) errs.push(invalidField(`${path}.versions`, s.versions, 'must have exactly one version marked as storage version'));
  // `spec.version` is the first version's name in the internal form.
  const first = str(s.versions[0]?.name);
  if (first) {
    const m = isDNS1035Label(first);
    if (m.length > 0) errs.push(invalidField(`${path}.version`, first, m.join(',')));
  }

  const namesObj = obj(spec.names) ?? {};
  if (!str(namesObj.plural)) errs.push(requiredField(`${path}.names.plural`));
  if (!str(namesObj.singular)) errs.push(requiredField(`${path}.names.singular`));
  if (!str(namesObj.kind)) errs.push(requiredField(`${path}.names.kind`));
  if (!str(namesObj.listKind)) errs.push(requiredField(`${path}.names.listKind`));
  errs.push(...validateNames(namesObj, `${path}.names`));

  const anyStatus = hasStatus(s.subresources) || (s.perVersionSubresources && s.versions.some((v) => hasStatus(obj(v.subresources))));
  errs.push(...validateValidation(s.validation, anyStatus, `${path}.validation`));
  errs.push(...validateSubresources(s.subresources, `${path}.subresources`));
  s.columns.forEach((c, j) => errs.push(...validateColumn(c, `${path}.additionalPrinterColumns[${j}]`)));

  const conversion = obj(spec.conversion);
  const strategy = str(conversion?.strategy);
  if (conversion && strategy !== 'None' && s.preserveUnknownFields) {
    errs.push(invalidField(`${path}.conversion.strategy`, strategy ?? '', 'must be None if spec.preserveUnknownFields is true'));
  }
  errs.push(...validateConversion(conversion, opts.requireRecognizedConversionReviewVersion, `${path}.conversion`));
  return errs;
}

// ---------------------------------------------------------------------------------------
// Status, stored versions, approval

function validateStatus(o: KubeObject): FieldError[] {
  return validateNames(obj(at(o, 'status.acceptedNames')) ?? {}, 'status.acceptedNames');
}

export function validateStoredVersions(storedVersions: unknown, versions: unknown, path: string): FieldError[] {
  const stored = arr(storedVersions).map(String);
  if (stored.length === 0) return [invalidRaw(path, goStrings(storedVersions), 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  stored.forEach((v, i) => remaining.set(v, i));
  for (const v of objs(versions)) {
    const name = str(v.name) ?? '';
    const known = remaining.has(name);
    if (v.storage === true && !known) errs.push(invalidField(path, v, `must have the storage version ${name}`));
    if (known) remaining.delete(name);
  }
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1])) errs.push(invalidField(`${path}[${i}]`, v, 'must appear in spec.versions'));
  return errs;
}

type ApprovalState = 'Invalid' | 'Approved' | 'Bypassed' | 'Missing';

function approvalState(annotation: string): { state: ApprovalState; reason: string } {
  const key = apiApprovedAnnotation();
  if (annotation === '') {
    return { state: 'Missing', reason: `protected groups must have approval annotation ${JSON.stringify(key)}, see https://github.com/kubernetes/enhancements/pull/1111` };
  }
  if (annotation.startsWith('unapproved')) return { state: 'Bypassed', reason: `not approved: ${JSON.stringify(annotation)}` };
  let url: URL | undefined;
  try {
    url = new URL(annotation);
  } catch {
    url = undefined;
  }
  if (url && url.host !== '' && url.protocol !== '') return { state: 'Approved', reason: `approved in ${annotation}` };
  return {
    state: 'Invalid',
    reason: `protected groups must have approval annotation ${JSON.stringify(key)} with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
  };
}

function annotationOf(o: KubeObject): string {
  const annotations = obj(meta(o).annotations);
  return str(annotations ? getOwn(annotations, apiApprovedAnnotation()) : undefined) ?? '';
}

function validateAPIApproval(o: KubeObject, old: KubeObject | undefined): FieldError[] {
  if (!isProtectedCommunityGroup(str(at(o, 'spec.group')) ?? '')) return [];
  const next = approvalState(annotationOf(o));
  // An unchanged state is never refused, so that controllers updating the spec keep working.
  if (old && approvalState(annotationOf(old)).state === next.state) return [];
  const path = `metadata.annotations[${apiApprovedAnnotation()}]`;
  switch (next.state) {
    case 'Missing':
      return [requiredField(path, next.reason)];
    case 'Invalid':
      return [invalidField(path, annotationOf(o), next.reason)];
    default:
      return [];
  }
}

function validatePreserveUnknownFields(o: KubeObject, old: KubeObject | undefined): FieldError[] {
  if (old && at(old, 'spec.preserveUnknownFields') === true) return [];
  if (at(o, 'spec.preserveUnknownFields') !== true) return [];
  return [invalidField('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

// ---------------------------------------------------------------------------------------
// Entry points

/** A new definition (ObjectMeta's own rules are the Store's). */
export function validateCustomResourceDefinition(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const required = `${str(at(o, 'spec.names.plural')) ?? ''}.${str(at(o, 'spec.group')) ?? ''}`;
  const m = meta(o);
  // The name rule applies to a generateName prefix too, which can therefore never be used.
  if (m.generateName && m.generateName !== required) errs.push(invalidField('metadata.generateName', m.generateName, 'must be spec.names.plural+"."+spec.group'));
  if (m.name && m.name !== required) errs.push(invalidField('metadata.name', m.name, 'must be spec.names.plural+"."+spec.group'));
  const opts: Options = { requireRecognizedConversionReviewVersion: true, requireImmutableNames: false, requireOpenAPISchema: true };
  errs.push(...validateSpec(o.spec, opts, 'spec'));
  errs.push(...validateStatus(o));
  errs.push(...validateStoredVersions(at(o, 'status.storedVersions'), at(o, 'spec.versions'), 'status.storedVersions'));
  errs.push(...validateAPIApproval(o, undefined));
  errs.push(...validatePreserveUnknownFields(o, undefined));
  return errs;
}

function allVersionsHaveSchema(spec: unknown): boolean {
  const s = internalSpec(obj(spec) ?? {});
  if (schemaOf(s.validation)) return true;
  return s.versions.every((v) => schemaOf(obj(v.schema)) !== undefined);
}

/** An update of the main resource: the create rules (relaxed where the stored object predates them) and what may not change. */
export function validateCustomResourceDefinitionUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const opts: Options = {
    requireRecognizedConversionReviewVersion: !present(at(old, 'spec.conversion')) || hasRecognizedReviewVersionOrEmpty(at(old, 'spec.conversion')),
    requireImmutableNames: isConditionTrue(old, 'Established'),
    // Existing data is not held to rules it was stored without.
    requireOpenAPISchema: allVersionsHaveSchema(old.spec),
  };
  const errs = validateSpec(o.spec, opts, 'spec');
  if (opts.requireImmutableNames) {
    errs.push(...immutable(at(o, 'spec.scope'), at(old, 'spec.scope'), 'spec.scope'));
    errs.push(...immutable(at(o, 'spec.names.kind'), at(old, 'spec.names.kind'), 'spec.names.kind'));
  }
  errs.push(...immutable(at(o, 'spec.group'), at(old, 'spec.group'), 'spec.group'));
  errs.push(...immutable(at(o, 'spec.names.plural'), at(old, 'spec.names.plural'), 'spec.names.plural'));
  errs.push(...validateStatus(o));
  errs.push(...validateStoredVersions(at(o, 'status.storedVersions'), at(o, 'spec.versions'), 'status.storedVersions'));
  errs.push(...validateAPIApproval(o, old));
  errs.push(...validatePreserveUnknownFields(o, old));
  return errs;
}

/** A `/status` write: only the accepted names are checked (stored versions may be pruned there). */
export function validateCustomResourceDefinitionStatusUpdate(o: KubeObject): FieldError[] {
  return validateStatus(o);
}
