// The Strategy of one served custom resource version (Kubernetes' customResourceStrategy and
// its status strategy): pruning and schema defaults, OpenAPI and CEL validation, the status
// subresource rules, generation, the scale paths, the metadata-only field selectors and the
// printer columns.
import { invalidField, type FieldError } from '../../apimachinery/errors.js';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { getOwn, setOwn } from '../../apimachinery/own.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { ScaleAccess, Strategy } from '../../rest/index.js';
import { compileValidations, type SchemaValidator } from '../../schema/cel/index.js';
import { applyDefaults, pruneObject, validateCustomResourceValue } from '../../schema/crd/index.js';
import type { ScalePaths } from './crd.js';
import { customResourceTable, type PrinterColumn } from './table.js';

/** A version's schema with its CEL rules compiled once. */
export interface VersionSchema {
  schema: JSONSchemaProps;
  cel: SchemaValidator;
}

/** `cel: false` (the CustomResourceValidationExpressions gate off) leaves the rules unevaluated, as kube-apiserver does. */
export function compileVersionSchema(schema: JSONSchemaProps, cel = true): VersionSchema {
  return { schema, cel: cel ? compileValidations(schema, '').validator : { empty: true, validate: () => [] } };
}

export interface CustomResourceStrategyOptions {
  /** `spec.group`. */
  group: string;
  namespaced: boolean;
  /** The served version declares the status subresource. */
  status: boolean;
  /**
   * The scale paths, when the served version declares the scale subresource; read on objects
   * in the version the store handles them in (the storage version).
   */
  scale?: ScalePaths;
  columns: PrinterColumn[];
  /**
   * The schema of every version that has one, by version name: an object is pruned,
   * defaulted and validated with the schema of the version it is in, as Kubernetes does.
   */
  schemas: ReadonlyMap<string, VersionSchema>;
}

const BLOCKING = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

const MAX_INT32 = 2147483647;

type Obj = Record<string, unknown>;

function isRecord(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The version part of an object's `apiVersion`. */
function versionOf(obj: KubeObject): string {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

/** The field names of a simple path (`.spec.replicas`, leading period optional). */
export function pathFields(path: string): string[] {
  return (path.startsWith('.') ? path.slice(1) : path).split('.');
}

/** Go's `%T` of a decoded JSON value. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return 'int64';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** Go's `%v` of a decoded JSON value. */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isRecord(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

type Nested = { found: false; error?: string } | { found: true; value: unknown };

/** The value at `fields`, or the accessor error Kubernetes' unstructured helpers report. */
function nested(obj: unknown, fields: string[]): Nested {
  let cur: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (!isRecord(cur)) {
      return { found: false, error: `.${fields.slice(0, i).join('.')} accessor error: ${goValue(cur)} is of the type ${goType(cur)}, expected map[string]interface{}` };
    }
    const next = getOwn(cur, fields[i] as string);
    if (next === undefined) return { found: false };
    cur = next;
  }
  return { found: true, value: cur };
}

/** An int64 at `path`: 0 when absent, an error when of another type. */
function nestedInt(obj: unknown, path: string): { value: number; error?: string } {
  const fields = pathFields(path);
  const got = nested(obj, fields);
  if (!got.found) return { value: 0, error: got.error };
  const v = got.value;
  if (typeof v === 'bigint') return { value: Number(v) };
  if (typeof v === 'number' && Number.isInteger(v)) return { value: v };
  return { value: 0, error: `.${fields.join('.')} accessor error: ${goValue(v)} is of the type ${goType(v)}, expected int64` };
}

function nestedString(obj: unknown, path: string): { value: string; error?: string } {
  const fields = pathFields(path);
  const got = nested(obj, fields);
  if (!got.found) return { value: '', error: got.error };
  if (typeof got.value === 'string') return { value: got.value };
  return { value: '', error: `.${fields.join('.')} accessor error: ${goValue(got.value)} is of the type ${goType(got.value)}, expected string` };
}

function checkReplicas(obj: KubeObject, path: string): FieldError[] {
  const { value, error } = nestedInt(obj, path);
  if (error) return [invalidField(path, value, error)];
  if (value < 0) return [invalidField(path, value, 'should be a non-negative integer')];
  if (value > MAX_INT32) return [invalidField(path, value, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

function validateScaleSpec(obj: KubeObject, scale: ScalePaths | undefined): FieldError[] {
  return scale ? checkReplicas(obj, scale.specReplicasPath) : [];
}

function validateScaleStatus(obj: KubeObject, scale: ScalePaths | undefined): FieldError[] {
  if (!scale) return [];
  const errs = checkReplicas(obj, scale.statusReplicasPath);
  if (scale.labelSelectorPath !== undefined) {
    const { value, error } = nestedString(obj, scale.labelSelectorPath);
    if (error) errs.push(invalidField(scale.labelSelectorPath, value, error));
  }
  return errs;
}

/** Sets `value` at a simple path, making the objects on the way. */
function setNested(obj: KubeObject, path: string, value: unknown): void {
  const fields = pathFields(path);
  let cur: Obj = obj as Obj;
  for (const f of fields.slice(0, -1)) {
    let next = getOwn(cur, f);
    if (!isRecord(next)) {
      next = {};
      setOwn(cur, f, next);
    }
    cur = next as Obj;
  }
  setOwn(cur, fields[fields.length - 1] as string, value);
}

export function scaleAccess(scale: ScalePaths): ScaleAccess {
  return {
    specReplicas: (obj) => nestedInt(obj, scale.specReplicasPath).value,
    setSpecReplicas: (obj, replicas) => setNested(obj, scale.specReplicasPath, replicas),
    statusReplicas: (obj) => nestedInt(obj, scale.statusReplicasPath).value,
    selector: (obj) => (scale.labelSelectorPath === undefined ? '' : nestedString(obj, scale.labelSelectorPath).value),
  };
}

/** Deep equality of decoded JSON values, key order aside. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof b === 'bigint') return typeof a !== 'object' && typeof b !== 'object' && String(a) === String(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function withoutMetadata(obj: KubeObject): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'metadata') setOwn(out, k, v);
  return out;
}

/** The one the CEL rules answer, or the notice that they were skipped for earlier errors. */
function celErrors(errs: FieldError[], compiled: VersionSchema | undefined, obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  if (!compiled || compiled.cel.empty) return [];
  if (errs.some((e) => BLOCKING.has(e.type))) {
    return [invalidField('<nil>', 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation')];
  }
  return compiled.cel.validate(obj, old);
}

export function customResourceStrategy(opts: CustomResourceStrategyOptions): Strategy {
  const schemaOf = (obj: KubeObject): VersionSchema | undefined => opts.schemas.get(versionOf(obj));
  const valueErrors = (obj: KubeObject): FieldError[] => {
    const compiled = schemaOf(obj);
    return compiled ? validateCustomResourceValue(obj, compiled.schema) : [];
  };
  const strategy: Strategy = {
    hasStatus: opts.status,
    allowCreateOnUpdate: false,
    // Kubernetes requires a resource version on every update of a custom resource.
    allowUnconditionalUpdate: false,
    tracksGeneration: true,
    defaults(obj) {
      const compiled = schemaOf(obj);
      if (!compiled) return;
      pruneObject(obj, compiled.schema);
      applyDefaults(obj, compiled.schema);
    },
    prepareForCreate(obj) {
      if (opts.status) delete obj.status;
    },
    prepareForUpdate(obj, old) {
      if (opts.status) {
        if (old.status !== undefined) obj.status = structuredClone(old.status);
        else delete obj.status;
      }
      // Any change outside metadata raises the generation, status included when it is no subresource.
      if (!jsonEqual(withoutMetadata(obj), withoutMetadata(old))) {
        const m = (obj.metadata ??= {});
        m.generation = (old.metadata?.generation ?? 0) + 1;
      }
    },
    prepareForStatusUpdate(obj, old) {
      // Only status changes: the rest, metadata included, is the old object's (the new
      // managed fields excepted, which the store records for this write).
      const status = obj.status;
      const managedFields = obj.metadata?.managedFields;
      for (const k of Object.keys(obj)) delete obj[k];
      for (const [k, v] of Object.entries(structuredClone(old))) setOwn(obj, k, v);
      const m = (obj.metadata ??= {});
      if (managedFields === undefined) delete m.managedFields;
      else m.managedFields = managedFields;
      if (status === undefined) delete obj.status;
      else obj.status = status;
    },
    validate(obj) {
      const errs = [...valueErrors(obj), ...validateScaleSpec(obj, opts.scale), ...validateScaleStatus(obj, opts.scale)];
      return [...errs, ...celErrors(errs, schemaOf(obj), obj, undefined)];
    },
    validateUpdate(obj, old) {
      const errs = [...valueErrors(obj), ...validateScaleSpec(obj, opts.scale), ...validateScaleStatus(obj, opts.scale)];
      return [...errs, ...celErrors(errs, schemaOf(obj), obj, old)];
    },
    selectableFields: () => ({}),
    fieldSelectorKeys: [],
    table: customResourceTable(opts.columns),
  };
  if (opts.scale) strategy.scale = scaleAccess(opts.scale);
  return strategy;
}
