// The semantics of a CustomResourceDefinition's OpenAPI v3 schema: the structural-schema
// rules a definition must meet, and what the schema does to custom resources (pruning,
// defaulting, value validation). Pure functions over plain data.
import type { FieldError } from '../../apimachinery/errors.js';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { defaultValue } from './defaults.js';
import { pruneNonNullableNulls, pruneResource } from './prune.js';
import { validateSchema } from './structural.js';
import { embeddedResourceErrors, listTypeErrors, openAPIErrors } from './value.js';

/**
 * Every problem of one version's `openAPIV3Schema` as apiextensions v1 validation words it
 * (structural rules, where `x-kubernetes-*` extensions may appear, metadata restrictions,
 * list/map type consistency, defaults that must validate and survive pruning). `path` is
 * the schema's field path in the definition (`spec.versions[0].schema.openAPIV3Schema`).
 * The status-subresource restriction of the root's fields and CEL rules are checked elsewhere.
 */
export function validateVersionSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  return validateSchema(schema, path);
}

/**
 * Removes, in place, every field the schema does not declare (unless
 * `x-kubernetes-preserve-unknown-fields`), keeping `apiVersion`, `kind` and `metadata` at the
 * root and in embedded resources, then drops the `null`s of fields that are neither nullable
 * nor defaulted (not reported, as in Kubernetes). Returns the removed fields' paths sorted,
 * in the form field validation quotes them: `spec.foo`, `spec.items[0].bar` (the warning
 * reads `unknown field "spec.foo"`).
 */
export function pruneObject(obj: KubeObject, schema: JSONSchemaProps): string[] {
  const removed = pruneResource(obj, schema);
  pruneNonNullableNulls(obj, schema);
  return removed;
}

/** Sets, in place, the schema's defaults on absent fields (and on nulls of non-nullable fields). */
export function applyDefaults(obj: KubeObject, schema: JSONSchemaProps): void {
  defaultValue(obj, schema);
}

/**
 * The OpenAPI value-validation errors of a custom resource against its schema (type,
 * format, enum, bounds, lengths, patterns, items, required, combinators, list types,
 * embedded resources), with Kubernetes' field paths and messages. The root's own
 * ObjectMeta rules (name, namespace, labels) are the caller's, as for every kind; the
 * schema's restrictions of `metadata.name` and `generateName` are checked here.
 */
export function validateCustomResourceValue(obj: KubeObject, schema: JSONSchemaProps): FieldError[] {
  const errs = openAPIErrors(schema, obj, null);
  // The root is not an embedded resource here: its type and metadata are checked by the caller.
  const root = schema['x-kubernetes-embedded-resource'] === true ? { ...schema, 'x-kubernetes-embedded-resource': false } : schema;
  embeddedResourceErrors(root, obj, '', errs);
  listTypeErrors(schema, obj, '', errs);
  return errs;
}
