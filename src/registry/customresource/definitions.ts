// The served resources of a CustomResourceDefinition: one ResourceDefinition per served
// version, all stored under one key space in the storage version, each with the Strategy
// built from its version and `customResource` set for the layers that treat custom
// resources apart.
import type { KubeObject } from '../../apimachinery/types.js';
import type { CustomResourceInfo, ResourceDefinition, SubresourceDefinition, VersionConversion } from '../../rest/index.js';
import { applyDefaults, pruneObject } from '../../schema/crd/index.js';
import { crdConversion, type CRDConversionOptions } from './conversion.js';
import { readCRD, type CRDView } from './crd.js';
import { compileVersionSchema, customResourceStrategy, type VersionSchema } from './strategy.js';
import { compareKubeAwareVersions, sortByVersionPriority } from '../../apimachinery/versions.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

/** Kubernetes' warning for a deprecated version without its own text. */
export function defaultDeprecationWarning(crd: CRDView, version: string): string {
  const kind = crd.specNames.kind;
  const message = `${crd.group}/${version} ${kind} is deprecated`;
  const newer = crd.versions.filter((v) => v.served && !v.deprecated && compareKubeAwareVersions(version, v.name) < 0).map((v) => v.name);
  const best = sortByVersionPriority(newer)[0];
  return best === undefined ? message : `${message}; use ${crd.group}/${best} ${kind}`;
}

/**
 * The version's conversion, with what Kubernetes' codec adds around it: objects are pruned
 * and defaulted with the schema of the version they arrive in and of the version they are
 * read as (defaults apply on read from storage).
 */
function servingConversion(crd: CRDView, version: string, compiled: VersionSchema | undefined, opts: CRDConversionOptions): VersionConversion | undefined {
  const conversion = crdConversion({ name: crd.name, group: crd.group, storageVersion: crd.storageVersion, conversion: crd.conversion }, version, opts);
  if (!compiled) return conversion;
  const settle = (obj: KubeObject): KubeObject => {
    pruneObject(obj, compiled.schema);
    applyDefaults(obj, compiled.schema);
    return obj;
  };
  if (!conversion) {
    // Stored in this version: still defaulted on read.
    const apiVersion = `${crd.group}/${crd.storageVersion}`;
    return { toStorage: (obj) => ({ ...obj, apiVersion, kind: crd.names.kind }), fromStorage: settle };
  }
  const served: VersionConversion = {
    toStorage: (obj) => conversion.toStorage(settle(obj)),
    fromStorage: (obj) => settle(conversion.fromStorage(obj)),
  };
  const waits = conversion.async;
  if (waits) {
    served.async = {
      toStorage: (obj) => waits.toStorage(settle(obj)),
      fromStorage: async (obj) => settle(await waits.fromStorage(obj)),
      fromStorageAll: async (objs) => (await waits.fromStorageAll(objs)).map(settle),
    };
  }
  return served;
}

/** One ResourceDefinition per served version of `crdObject`, highest version priority first. */
export function customResourceDefinitions(crdObject: KubeObject, conversionOpts: CRDConversionOptions = {}, celValidation = true): ResourceDefinition[] {
  const crd = readCRD(crdObject);
  const schemas = new Map<string, VersionSchema>();
  for (const v of crd.versions) if (v.schema) schemas.set(v.name, compileVersionSchema(v.schema, celValidation));
  const served = crd.versions.filter((v) => v.served);
  const order = sortByVersionPriority(served.map((v) => v.name));
  const storage = { group: crd.group, resource: crd.specNames.plural || crd.names.plural, version: crd.storageVersion };
  const storageVersion = crd.versions.find((v) => v.storage);
  const defs: ResourceDefinition[] = [];
  for (const name of order) {
    const v = served.find((s) => s.name === name);
    if (!v) continue;
    const subresources: SubresourceDefinition[] = [];
    if (v.status) subresources.push({ name: 'status', kind: crd.names.kind, verbs: SUBRESOURCE_VERBS, serving: { by: 'status' } });
    if (v.scale) subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: SUBRESOURCE_VERBS, serving: { by: 'scale' } });
    // The store handles objects in the storage version, so scale paths are read there; they
    // name the same fields in every version a conversion maps.
    const scale = v.scale ? (storageVersion?.scale ?? v.scale) : undefined;
    const strategy = customResourceStrategy({ group: crd.group, namespaced: crd.namespaced, status: v.status, scale, columns: v.columns, schemas });
    const info: CustomResourceInfo = { crdName: crd.name, crdUID: crd.uid };
    if (v.schema) info.schema = v.schema;
    if (v.deprecated) info.deprecationWarning = v.deprecationWarning ?? defaultDeprecationWarning(crd, v.name);
    const def: ResourceDefinition = {
      group: crd.group,
      version: v.name,
      resource: crd.names.plural,
      kind: crd.names.kind,
      singularName: crd.names.singular,
      namespaced: crd.namespaced,
      shortNames: crd.names.shortNames,
      categories: crd.names.categories,
      verbs: ALL_VERBS,
      subresources,
      preferred: name === order[0],
      storage,
      strategy,
      customResource: info,
    };
    const conversion = servingConversion(crd, v.name, schemas.get(v.name), conversionOpts);
    if (conversion) def.conversion = conversion;
    defs.push(def);
  }
  return defs;
}
