// Sample objects for the codec's tests and benchmark: every field of a catalog type filled
// with a non-zero value of its type, in the form the upstream types print (so that binary
// and back gives the same JSON).
import { fromKubernetesGroup } from '../naming/index.js';
import type { GroupVersionKind } from '../apimachinery/types.js';
import { getCatalog, lookupType, servedFieldName } from '../schema/index.js';
import type { FieldDef, TypeRef } from '../schema/index.js';

/** One served kind per catalog type that has a binary form. */
export function builtinKinds(): { id: string; gvk: GroupVersionKind }[] {
  const out: { id: string; gvk: GroupVersionKind }[] = [];
  for (const def of Object.values(getCatalog().types)) {
    if (!def.protobufMessage || !def.kinds?.length) continue;
    const k = def.kinds[0];
    out.push({ id: def.id, gvk: { group: fromKubernetesGroup(k.group), version: k.version, kind: k.kind } });
  }
  return out;
}

const STRINGS = ['alpha', 'grüße-ü', 'x'.repeat(200), 'emoji-🚀', 'b'];
const INT32S = [7, -5, 2147483647, 300, -2147483648];
const INT64S = [42, -9, 2 ** 40, 1, -(2 ** 33)];
const QUANTITIES = ['100m', '1Gi', '5', '1500k', '-2'];
const TIMES = ['2024-05-06T07:08:09Z', '1999-12-31T23:59:59Z', '2038-01-19T03:14:08Z'];
const MICRO_TIMES = ['2024-05-06T07:08:09.123456Z', '2001-02-03T04:05:06.000001Z'];

/** Deterministic variety: each call site picks the next element of its table. */
class Picker {
  private n = 0;
  pick<T>(values: readonly T[]): T {
    return values[this.n++ % values.length];
  }
  next(): number {
    return this.n++;
  }
}

export interface SampleOptions {
  /** How deep recursive types (JSON schemas) are followed. */
  recursion?: number;
}

/** A sample of catalog type `id` with every field set. */
export function sampleObject(id: string, opts: SampleOptions = {}): Record<string, unknown> {
  return sampleStruct(id, new Picker(), new Map(), opts.recursion ?? 1);
}

function sampleStruct(id: string, p: Picker, seen: Map<string, number>, recursion: number): Record<string, unknown> {
  const def = lookupType(id);
  if (!def) throw new Error(`no catalog type ${id}`);
  const depth = seen.get(id) ?? 0;
  seen.set(id, depth + 1);
  const out: Record<string, unknown> = {};
  for (const f of def.fields) {
    if (!f.protobuf) continue;
    if (f.inline && 'ref' in f.type) {
      Object.assign(out, sampleStruct(f.type.ref, p, seen, recursion));
      continue;
    }
    const optional = f.pointer || 'list' in f.type || 'map' in f.type;
    const recursive = 'ref' in f.type || 'list' in f.type || 'map' in f.type ? refersTo(f.type) : undefined;
    if (optional && recursive !== undefined && (seen.get(recursive) ?? 0) > recursion) {
      if (!f.omitEmpty) out[servedFieldName(f.name)] = null;
      continue;
    }
    out[servedFieldName(f.name)] = sampleValue(f.type, f, p, seen, recursion);
  }
  seen.set(id, depth);
  return out;
}

function refersTo(t: TypeRef): string | undefined {
  if ('ref' in t) return t.ref;
  if ('list' in t) return refersTo(t.list);
  if ('map' in t) return refersTo(t.map);
  return undefined;
}

const SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

function sampleValue(t: TypeRef, f: FieldDef, p: Picker, seen: Map<string, number>, recursion: number): unknown {
  if ('list' in t) return [sampleValue(t.list, f, p, seen, recursion), sampleValue(t.list, f, p, seen, recursion)];
  if ('map' in t) {
    return { 'zeta-key': sampleValue(t.map, f, p, seen, recursion), 'alpha.key/b': sampleValue(t.map, f, p, seen, recursion) };
  }
  if ('ref' in t) {
    const def = lookupType(t.ref);
    if (def?.scalar) return sampleScalar(def.scalar, f, p, seen, recursion);
    return sampleStruct(t.ref, p, seen, recursion);
  }
  return sampleScalar(t.scalar, f, p, seen, recursion);
}

function sampleScalar(scalar: string, f: FieldDef, p: Picker, seen: Map<string, number>, recursion: number): unknown {
  switch (scalar) {
    case 'string':
      return `${p.pick(STRINGS)}-${p.next()}`;
    case 'boolean':
      return true;
    case 'int32':
      return p.pick(INT32S);
    case 'int64':
      return p.pick(INT64S);
    case 'float64':
      return p.pick([1.5, -0.25, 1e21]);
    case 'bytes':
      return Buffer.from(`bytes-${p.next()}\u0000\u00ff`).toString('base64');
    case 'int-or-string':
      return p.next() % 2 === 0 ? p.pick([8080, -1, 0x7fffffff]) : `port-${p.next()}`;
    case 'quantity':
      return p.pick(QUANTITIES);
    case 'time':
      return p.pick(TIMES);
    case 'micro-time':
      return p.pick(MICRO_TIMES);
    case 'duration':
      return p.pick(['1m30s', '250ms', '1h0m0s']);
    case 'raw-extension':
    case 'fields-v1':
      return { apiVersion: 'example/v1', kind: 'Embedded', spec: { n: p.next(), list: ['a', null, true] } };
    case 'json': {
      const type = f.protobuf?.mapEntry?.value ?? f.protobuf?.type ?? '';
      const nested = (seen.get(SCHEMA_PROPS) ?? 0) > recursion;
      const schema = (): Record<string, unknown> => (nested ? { type: 'string' } : sampleStruct(SCHEMA_PROPS, p, seen, recursion));
      if (type.endsWith('JSONSchemaPropsOrBool')) return p.next() % 2 === 0 ? false : schema();
      if (type.endsWith('JSONSchemaPropsOrArray')) return p.next() % 2 === 0 ? [schema()] : schema();
      if (type.endsWith('JSONSchemaPropsOrStringArray')) return ['first', `second-${p.next()}`];
      return { any: ['json', p.next(), { nested: null }] };
    }
  }
  throw new Error(`no sample for scalar ${scalar}`);
}
