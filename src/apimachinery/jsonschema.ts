// The OpenAPI v3 schema of a CustomResourceDefinition version (apiextensions v1
// JSONSchemaProps), as plain data. Every layer that reads a custom resource's schema
// (validation, pruning, defaulting, CEL, apply, field validation, OpenAPI) takes this shape.
import { getOwn } from './own.js';

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
