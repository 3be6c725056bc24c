// REST paths and query strings as the API server routes them (the spec's path shapes).
import type { GroupVersion, GroupVersionResource } from '../apimachinery/types.js';
import type { ListOptions } from '../rest/index.js';

/** `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export function groupVersionPath(gv: GroupVersion): string {
  return gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
}

/** `<gv>/[namespaces/<ns>/]<resource>[/<name>[/<subresource>]]`. */
export function resourcePath(r: GroupVersionResource, namespace: string, name?: string, subresource?: string): string {
  let path = groupVersionPath(r);
  if (namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${r.resource}`;
  if (name !== undefined && name !== '') {
    path += `/${encodeURIComponent(name)}`;
    if (subresource) path += `/${subresource}`;
  }
  return path;
}

/** The query string (with its `?`, or '') of list and watch options. */
export function listQuery(opts: ListOptions | undefined, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  if (opts) {
    if (opts.labelSelector) q.set('labelSelector', opts.labelSelector);
    if (opts.fieldSelector) q.set('fieldSelector', opts.fieldSelector);
    if (opts.resourceVersion !== undefined) q.set('resourceVersion', opts.resourceVersion);
    if (opts.resourceVersionMatch) q.set('resourceVersionMatch', opts.resourceVersionMatch);
    if (opts.limit !== undefined) q.set('limit', String(opts.limit));
    if (opts.continue) q.set('continue', opts.continue);
    if (opts.timeoutSeconds !== undefined) q.set('timeoutSeconds', String(opts.timeoutSeconds));
    if (opts.allowWatchBookmarks) q.set('allowWatchBookmarks', 'true');
    if (opts.sendInitialEvents !== undefined) q.set('sendInitialEvents', String(opts.sendInitialEvents));
  }
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}
