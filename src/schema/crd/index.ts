// The semantics of a CustomResourceDefinition's OpenAPI v3 schema: the structural-schema
// rules a definition must meet, and what the schema does to custom resources (pruning,
// defaulting, value validation). Pure functions over plain data.
import type { FieldError } from '../../apimachinery/errors.js';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import type { KubeObject } from '../../apimachinery/types.js';

/**
 * Every problem of one version's `openAPIV3Schema` as apiextensions v1 validation words it
 * (structural rules, where `x-kubernetes-*` extensions may appear, metadata restrictions,
 * list/map type consistency, defaults that must validate and survive pruning). `path` is
 * the schema's field path in the definition (`spec.versions[0].schema.openAPIV3Schema`).
 */
export function validateVersionSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  void schema;
  void path;
  return [];
}

/**
 * Removes, in place, every field the schema does not declare (unless
 * `x-kubernetes-preserve-unknown-fields`), keeping `apiVersion`, `kind` and the allowed
 * metadata at the root and in embedded resources. Returns the removed fields' paths as
 * field validation reports them (`.spec.foo`).
 */
export function pruneObject(obj: KubeObject, schema: JSONSchemaProps): string[] {
  void obj;
  void schema;
  return [];
}

/** Sets, in place, the schema's defaults on absent fields (and on nulls of non-nullable fields). */
export function applyDefaults(obj: KubeObject, schema: JSONSchemaProps): void {
  void obj;
  void schema;
}

/**
 * The OpenAPI value-validation errors of a custom resource against its schema (type,
 * format, enum, bounds, lengths, patterns, items, required, combinators, list types,
 * embedded resources), with Kubernetes' field paths and messages.
 */
export function validateCustomResourceValue(obj: KubeObject, schema: JSONSchemaProps): FieldError[] {
  void obj;
  void schema;
  return [];
}
