// Conversion of custom resources between the versions of their definition. `None` rewrites
// `apiVersion` only; `Webhook` asks the definition's conversion webhook.
import type { KubeObject } from '../../apimachinery/types.js';
import type { VersionConversion } from '../../rest/index.js';

/** The part of a CustomResourceDefinition conversion reads. */
export interface CRDConversionSource {
  group: string;
  /** The storage version's name. */
  storageVersion: string;
  /** `spec.conversion` as stored. */
  conversion?: { strategy?: string; webhook?: unknown };
}

/** Conversion between `servedVersion` and the storage version; undefined when they are the same. */
export function crdConversion(crd: CRDConversionSource, servedVersion: string): VersionConversion | undefined {
  if (servedVersion === crd.storageVersion) return undefined;
  const storageApiVersion = `${crd.group}/${crd.storageVersion}`;
  const servedApiVersion = `${crd.group}/${servedVersion}`;
  const rewrite = (apiVersion: string) => (obj: KubeObject): KubeObject => ({ ...obj, apiVersion });
  return { toStorage: rewrite(storageApiVersion), fromStorage: rewrite(servedApiVersion) };
}
