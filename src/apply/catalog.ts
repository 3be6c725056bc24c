// Server-side apply over the built-in schema catalog, and the defaults of the write paths.
import { lookupType, typeIdForKind } from '../schema/index.js';
import { FieldSet, fieldElement } from './fieldpath.js';
import { FieldManager } from './field-manager.js';
import { ApplySchema } from './schema.js';
import { isPrintable } from './request.js';
import { customResourceApplySchema } from './custom-resource.js';
import type { JSONSchemaProps } from '../apimachinery/jsonschema.js';

let catalogSchema: ApplySchema | undefined;

/** The ApplySchema of the built-in catalog (custom resources are untyped in it). */
export function catalogApplySchema(): ApplySchema {
  catalogSchema ??= new ApplySchema({ lookupType });
  return catalogSchema;
}

export interface KindFieldManagerOptions {
  /** The request's group, version and kind. */
  group: string;
  version: string;
  kind: string;
  /** `group/version` of the request, recorded in the entries. */
  apiVersion: string;
  /** The subresource written through, recorded in the entries. */
  subresource?: string;
  /**
   * Top-level fields no manager owns through this endpoint (Kubernetes' reset fields): `status`
   * on the object of a kind with a status subresource, `spec` on that subresource.
   */
  resetFields?: readonly string[];
  now: () => Date;
  /**
   * The schema of a custom resource version: objects of a kind the catalog does not know
   * are read through it (an apply to the `scale` subresource is of the built-in Scale).
   */
  customResourceSchema?: JSONSchemaProps;
}

/** A FieldManager for one kind and endpoint. */
export function fieldManagerForKind(o: KindFieldManagerOptions): FieldManager {
  const resetFields = o.resetFields?.length ? FieldSet.of(o.resetFields.map((f) => [fieldElement(f)])) : undefined;
  const common = { apiVersion: o.apiVersion, subresource: o.subresource, resetFields, now: o.now };
  const typeId = typeIdForKind({ group: o.group, version: o.version, kind: o.kind });
  // The custom resource itself (also when its scale subresource changes it), not its Scale.
  if (o.customResourceSchema && !typeId) {
    const schema = customResourceApplySchema({ lookupType }, o.customResourceSchema);
    // A custom resource has no Go zero value: a create is compared with an empty object.
    return new FieldManager({ ...common, schema, type: schema.rootType, emptyObject: () => ({}) });
  }
  const schema = catalogApplySchema();
  const emptyObject = () => emptyObjectOf({ group: o.group, version: o.version, kind: o.kind });
  return new FieldManager({ ...common, schema, type: schema.root(typeId), emptyObject });
}

/** The kind's empty object as Go encodes it: what a create is compared against. */
export function emptyObjectOf(gvk: { group: string; version: string; kind: string }): Record<string, unknown> {
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let empty = emptyObjects.get(key);
  if (!empty) {
    const typeId = typeIdForKind(gvk);
    empty = typeId ? catalogApplySchema().zeroValue(typeId) : {};
    emptyObjects.set(key, empty);
  }
  return structuredClone(empty);
}

const emptyObjects = new Map<string, Record<string, unknown>>();

const FIELD_MANAGER_MAX_LENGTH = 128;

/**
 * The manager of a write that names none: the User-Agent up to its first `/`, without
 * unprintable characters, cut to the 128 bytes a manager name may have.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0];
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    if (!isPrintable(ch)) continue;
    const len = Buffer.byteLength(ch);
    if (bytes + len > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += len;
  }
  return out;
}
