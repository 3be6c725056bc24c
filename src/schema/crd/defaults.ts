// Structural defaulting: `default`s fill absent fields and the nulls of non-nullable ones,
// top-down, so defaults set on an object are themselves defaulted further down.
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { getOwn, setOwn } from '../../apimachinery/own.js';

function asSchema(v: unknown): JSONSchemaProps | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JSONSchemaProps) : undefined;
}

function isNonNullableNull(x: unknown, s: JSONSchemaProps | undefined): boolean {
  return x === null && s !== undefined && s.nullable !== true;
}

/** Fills defaults into `x` in place. */
export function defaultValue(x: unknown, s: JSONSchemaProps | undefined): void {
  if (!s || x === null || typeof x !== 'object') return;
  if (Array.isArray(x)) {
    const items = asSchema(s.items);
    if (!items) return;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items)) x[i] = items.default === undefined ? null : structuredClone(items.default);
      defaultValue(x[i], items);
    }
    return;
  }
  const obj = x as Record<string, unknown>;
  const props = asSchema(s.properties) as Record<string, JSONSchemaProps> | undefined;
  if (props) {
    for (const k of Object.keys(props)) {
      const ps = asSchema(props[k]);
      if (!ps || ps.default === undefined) continue;
      if (!Object.hasOwn(obj, k) || isNonNullableNull(obj[k], ps)) setOwn(obj, k, structuredClone(ps.default));
    }
  }
  const extra = asSchema(s.additionalProperties);
  for (const k of Object.keys(obj)) {
    const ps = props ? getOwn(props, k) : undefined;
    if (ps) defaultValue(obj[k], asSchema(ps));
    else if (extra) {
      if (isNonNullableNull(obj[k], extra)) setOwn(obj, k, extra.default === undefined ? null : structuredClone(extra.default));
      defaultValue(obj[k], extra);
    }
  }
}
