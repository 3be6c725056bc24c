// Fields of a CustomResourceDefinition that a feature gate switches: with
// CustomResourceValidationExpressions off, the validation rules (`x-kubernetes-validations`) are dropped from new
// definitions and from updates of ones that had none, as kube-apiserver 1.27 does.
import { getOwn } from '../../apimachinery/own.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { extension } from '../../naming/index.js';
import type { Strategy } from '../../rest/index.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keys whose values are schemas, or maps or lists of schemas. */
const SCHEMA_KEYS = ['items', 'additionalProperties', 'additionalItems', 'not'];
const SCHEMA_LIST_KEYS = ['allOf', 'anyOf', 'oneOf'];
const SCHEMA_MAP_KEYS = ['properties', 'patternProperties', 'definitions', 'dependencies'];

/** Visits every schema node under `schema` (iteratively: client input may be deep). */
function eachSchema(schema: unknown, visit: (s: Json) => boolean | void): boolean {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const s = stack.pop();
    if (Array.isArray(s)) {
      stack.push(...s);
      continue;
    }
    if (!isObject(s)) continue;
    if (visit(s) === true) return true;
    for (const k of SCHEMA_KEYS) stack.push(getOwn(s, k));
    for (const k of SCHEMA_LIST_KEYS) stack.push(getOwn(s, k));
    for (const k of SCHEMA_MAP_KEYS) {
      const m = getOwn(s, k);
      if (isObject(m)) stack.push(...Object.values(m));
    }
  }
  return false;
}

function versionSchemas(crd: KubeObject): unknown[] {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const out: unknown[] = [];
  const validation = getOwn(spec, 'validation');
  if (isObject(validation)) out.push(getOwn(validation, 'openAPIV3Schema'));
  const versions = getOwn(spec, 'versions');
  for (const v of Array.isArray(versions) ? versions : []) {
    const schema = isObject(v) ? getOwn(v, 'schema') : undefined;
    if (isObject(schema)) out.push(getOwn(schema, 'openAPIV3Schema'));
  }
  return out;
}

export function hasValidationRules(crd: KubeObject): boolean {
  const key = extension('validations');
  return versionSchemas(crd).some((s) => eachSchema(s, (node) => Object.hasOwn(node, key)));
}

export function dropValidationRules(crd: KubeObject): void {
  // Stored definitions spell extensions in the served flavor.
  const key = extension('validations');
  for (const s of versionSchemas(crd)) {
    eachSchema(s, (node) => {
      delete node[key];
    });
  }
}

/** The definition strategy with `x-kubernetes-validations` dropped as the gate being off does. */
export function withoutValidationRules(strategy: Strategy): Strategy {
  const gated: Strategy = Object.create(strategy) as Strategy;
  gated.prepareForCreate = (obj) => {
    strategy.prepareForCreate(obj);
    dropValidationRules(obj);
  };
  gated.prepareForUpdate = (obj, old) => {
    strategy.prepareForUpdate(obj, old);
    if (!hasValidationRules(old)) dropValidationRules(obj);
  };
  return gated;
}
