// The check Kubernetes makes when it turns a strategically merged document back into the
// typed object: a value whose JSON shape cannot fill its field (a string where a map, list
// or struct belongs) fails the whole patch. The merge itself lets a patch value of another
// type replace the old one, so this is where such a patch is refused.

import { invalid, invalidField } from '../apimachinery/errors.js';
import { isPlainObject } from '../apimachinery/types.js';
import type { TypeRef } from '../schema/catalog-types.js';
import { goFormat, goTypeName } from './json-value.js';
import type { PatchSchema } from './strategic-schema.js';

/** The Go kind of a decoded JSON value, as the converter names it in its errors. */
function goKind(value: unknown): string {
  const type = goTypeName(value);
  if (type === '[]interface {}') return 'slice';
  if (type === 'map[string]interface {}') return 'map';
  return type;
}

/** The Go kind of a catalog scalar that has no JSON conversion of its own. */
const PLAIN_SCALARS: Partial<Record<string, string>> = { string: 'string', boolean: 'bool', int32: 'int32', int64: 'int64', float64: 'float64' };

/**
 * Why `value` cannot be restored into a field of type `type`, or undefined. Only failures
 * whose text does not depend on Go type names the catalog does not keep are reported
 * (named string types, the custom JSON types); the others are left to validation.
 */
export function restoreProblem(value: unknown, type: TypeRef, schema: PatchSchema): string | undefined {
  if (value === null || value === undefined) return undefined;
  if ('ref' in type) {
    if (!isPlainObject(value)) return `cannot restore struct from: ${goKind(value)}`;
    for (const [key, member] of Object.entries(value)) {
      const field = schema.field(type.ref, key);
      const problem = field && restoreProblem(member, field.type, schema);
      if (problem) return problem;
    }
    return undefined;
  }
  if ('map' in type) {
    if (!isPlainObject(value)) return `cannot restore map from ${goKind(value)}`;
    for (const member of Object.values(value)) {
      const problem = restoreProblem(member, type.map, schema);
      if (problem) return problem;
    }
    return undefined;
  }
  if ('list' in type) {
    if (!Array.isArray(value)) return `cannot restore slice from ${goKind(value)}`;
    for (const item of value) {
      const problem = restoreProblem(item, type.list, schema);
      if (problem) return problem;
    }
    return undefined;
  }
  if (type.scalar === 'bytes') {
    // Bytes are a base64 string in JSON, or a list of numbers.
    return typeof value === 'string' || Array.isArray(value) ? undefined : `cannot restore slice from ${goKind(value)}`;
  }
  const target = PLAIN_SCALARS[type.scalar];
  if (!target) return undefined;
  const source = goKind(value);
  // Numbers convert among themselves (a fraction into an integer aside, whose message names
  // the Go type) and to nothing else; strings and booleans only to their own kind.
  const numeric = (k: string): boolean => k === 'int64' || k === 'float64' || k === 'int32';
  if (source === target || (numeric(source) && numeric(target))) return undefined;
  if (source === 'int64' && target === 'string') return undefined;
  return `unrecognized type: ${target}`;
}

/**
 * Throws the 422 kube-apiserver answers when the merged document does not restore into the
 * kind's type: the field is `patch`, its value the patch as Go's `%v` prints it.
 */
export function checkRestorable(merged: unknown, patch: unknown, schema: PatchSchema): void {
  const problem = restoreProblem(merged, { ref: schema.rootType }, schema);
  if (!problem) return;
  const err = invalid({ group: '', kind: '' }, '', [invalidField('patch', goFormat(patch), problem)]);
  // The empty name, group and kind are left out of the details, as Go omits empty strings there.
  const details = err.status.details;
  if (details) {
    delete details.name;
    delete details.group;
    delete details.kind;
  }
  throw err;
}
