// Which catalog types a set of served resources needs in an OpenAPI document.

import { typeIdForKind } from '../catalog.js';
import type { OpenApiResource } from './paths.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Types every document carries: the bodies and answers of the generic operations. */
export function metaRoots(): string[] {
  return ['Status', 'DeleteOptions', 'Patch', 'WatchEvent', 'APIResourceList', 'APIGroupList', 'APIGroup', 'APIVersions'].map(
    (n) => `${META}.${n}`,
  );
}

/** The kinds, lists and subresource kinds of the resources that the catalog knows. */
export function rootsOf(resources: readonly OpenApiResource[]): string[] {
  const ids: string[] = [];
  for (const r of resources) {
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
