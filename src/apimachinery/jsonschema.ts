// The OpenAPI v3 schema of a CustomResourceDefinition version (apiextensions v1
// JSONSchemaProps), as plain data. Every layer that reads a custom resource's schema
// (validation, pruning, defaulting, CEL, apply, field validation, OpenAPI) takes this shape.
// Extension keys are always spelled `x-kubernetes-*` here; `canonicalSchema` and
// `servedSchema` translate from and to the running flavor's spelling.
import { extension } from '../naming/index.js';
import { getOwn, setOwn } from './own.js';

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired`, `FieldValueDuplicate`. */
  reason?: string;
  fieldPath?: string;
}

export interface ExternalDocumentation {
  description?: string;
  url?: string;
}

export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  /** A schema, or (JSONSchemaPropsOrArray) a list of schemas. */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  /** A schema, or (JSONSchemaPropsOrBool) a boolean. */
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: ExternalDocumentation;
  example?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  /** `atomic`, `set` or `map`. */
  'x-kubernetes-list-type'?: string;
  /** `atomic` or `granular`. */
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

/** The schema of an object's field, descending through `properties` and `additionalProperties`. */
export function propertySchema(schema: JSONSchemaProps | undefined, name: string): JSONSchemaProps | undefined {
  if (!schema) return undefined;
  const declared = schema.properties ? getOwn(schema.properties, name) : undefined;
  if (declared) return declared;
  const extra = schema.additionalProperties;
  return typeof extra === 'object' && extra !== null ? extra : undefined;
}

/** The schema of a list's items (the single-schema form of `items`). */
export function itemsSchema(schema: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  const items = schema?.items;
  return items !== undefined && !Array.isArray(items) ? items : undefined;
}

const CANONICAL_PREFIX = 'x-kubernetes-';
/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = new Set(['not', 'additionalProperties', 'additionalItems', 'items']);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'oneOf', 'anyOf', 'items']);
/** Keywords whose value maps names to schemas (names are the user's, never renamed). */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'definitions', 'dependencies']);

/** Renames extension keys of every schema node from one prefix to another; values are untouched. */
function renameExtensions(node: unknown, from: string, to: string): unknown {
  if (from === to || node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    const name = key.startsWith(from) ? to + key.slice(from.length) : key;
    let v = value;
    if (SCHEMA_KEYWORDS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      v = renameExtensions(value, from, to);
    } else if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) {
      v = value.map((s) => renameExtensions(s, from, to));
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const m: Record<string, unknown> = {};
      for (const [n, s] of Object.entries(value as Record<string, unknown>)) setOwn(m, n, Array.isArray(s) ? s : renameExtensions(s, from, to));
      v = m;
    }
    setOwn(out, name, v);
  }
  return out;
}

/**
 * A schema as a definition carries it in the running flavor (`x-orch-*` extension keys in
 * the orch flavor), with the extension keys spelled `x-kubernetes-*` as `JSONSchemaProps`
 * names them. Everything that reads a schema reads this form.
 */
export function canonicalSchema(served: unknown): JSONSchemaProps {
  return renameExtensions(served, extension(''), CANONICAL_PREFIX) as JSONSchemaProps;
}

/** The inverse of `canonicalSchema`: extension keys in the running flavor, for publishing. */
export function servedSchema(schema: JSONSchemaProps): Record<string, unknown> {
  return renameExtensions(schema, CANONICAL_PREFIX, extension('')) as Record<string, unknown>;
}
