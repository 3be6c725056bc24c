// Which catalog types a set of served resources needs in an OpenAPI document.

import { typeIdForKind } from '../catalog.js';
import { LIST_META, OBJECT_META } from './custom.js';
import type { OpenApiResource } from './paths.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** The bodies and answers of a custom resource's operations. */
export function customMetaRoots(): string[] {
  return ['Status', 'DeleteOptions', 'Patch'].map((n) => `${META}.${n}`);
}

/** Types every document carries: the bodies and answers of the generic operations. */
export function metaRoots(): string[] {
  return ['Status', 'DeleteOptions', 'Patch', 'WatchEvent', 'APIResourceList', 'APIGroupList', 'APIGroup', 'APIVersions'].map(
    (n) => `${META}.${n}`,
  );
}

/** The kinds, lists and subresource kinds of the resources that the catalog knows, and what custom kinds refer to. */
export function rootsOf(resources: readonly OpenApiResource[]): string[] {
  const ids: string[] = [];
  for (const r of resources) {
    if (r.customResource) {
      // The kind and its list are the CRD's own definitions; they refer to these.
      ids.push(OBJECT_META, LIST_META);
      // Their scale subresource answers the built-in Scale.
      for (const s of r.subresources) {
        const id = typeIdForKind({ group: s.group ?? r.group, version: s.version ?? r.version, kind: s.kind });
        if (id) ids.push(id);
      }
      continue;
    }
    for (const gvk of [
      r,
      { ...r, kind: `${r.kind}List` },
      ...r.subresources.map((s) => ({ group: s.group ?? r.group, version: s.version ?? r.version, kind: s.kind })),
    ]) {
      const id = typeIdForKind(gvk);
      if (id) ids.push(id);
    }
  }
  return ids;
}
