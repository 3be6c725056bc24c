// A stored revision as the API shows it (kind Revision of history.<product domain>/v1), and its
// row in a Table. Pure functions.
import type { KubeObject } from '../apimachinery/types.js';
import { rfc3339 } from '../apimachinery/time.js';
import { parseJsonText } from '../codec/json.js';
import type { TableConvertor } from '../rest/index.js';
import { since } from '../apis/table.js';
import { jsonPatch } from './diff.js';
import type { ObjectHistory, StoredRevision } from './store.js';

/** `<target uid>.<resourceVersion>`: a revision's name. */
export function revisionName(uid: string, resourceVersion: number): string {
  return `${uid}.${resourceVersion}`;
}

/** The uid and resourceVersion a revision's name carries, or undefined when it is not one. */
export function parseRevisionName(name: string): { uid: string; resourceVersion: number } | undefined {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const uid = name.slice(0, dot);
  const rv = name.slice(dot + 1);
  if (!/^[1-9]\d{0,15}$/.test(rv) || !Number.isSafeInteger(Number(rv))) return undefined;
  return { uid, resourceVersion: Number(rv) };
}

/** The object a revision holds. */
export function revisionObject(r: StoredRevision): KubeObject {
  return parseJsonText(r.text, { checkDepth: false, trusted: true }) as KubeObject;
}

/**
 * The API object of `history.revisions[index]`; `previous` is the object of the revision
 * before it (undefined for the first kept one, whose patch is then empty).
 */
export function toRevision(apiVersion: string, history: ObjectHistory, index: number, object: KubeObject, previous: KubeObject | undefined): KubeObject {
  const r = history.revisions[index]!;
  const t = history.target;
  const time = rfc3339(new Date(r.timeMs));
  const metadata: Record<string, unknown> = { name: revisionName(t.uid, r.resourceVersion) };
  if (t.namespace) metadata.namespace = t.namespace;
  metadata.resourceVersion = String(r.resourceVersion);
  metadata.creationTimestamp = time;
  const out: KubeObject = {
    apiVersion,
    kind: 'Revision',
    metadata,
    target: { apiVersion: t.apiVersion, kind: t.kind, group: t.group, resource: t.resource, ...(t.namespace ? { namespace: t.namespace } : {}), name: t.name, uid: t.uid },
    revision: history.first + index,
    resourceVersion: String(r.resourceVersion),
    timestamp: time,
    operation: r.operation,
  };
  if (r.subresource) out.subresource = r.subresource;
  out.user = { username: r.user.username, groups: [...r.user.groups] };
  if (r.fieldManager) out.fieldManager = r.fieldManager;
  out.object = object;
  out.patch = previous === undefined ? [] : jsonPatch(withoutVolatile(previous), withoutVolatile(object));
  return out;
}

/** The object without `metadata.resourceVersion`, which differs between any two revisions. */
function withoutVolatile(obj: KubeObject): KubeObject {
  if (!obj.metadata || obj.metadata.resourceVersion === undefined) return obj;
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** The Table columns kubectl shows: NAME (the target's), REVISION, TIME, USER, MANAGER, OPERATION. */
export const revisionTable: TableConvertor = {
  columns: [
    { name: 'Name', type: 'string', format: 'name', description: 'The name of the object this revision is of.', priority: 0 },
    { name: 'Revision', type: 'integer', format: '', description: 'The ordinal of this revision among the object\'s revisions, from 1.', priority: 0 },
    // An age, as kubectl shows times; the Revision's `timestamp` has the time itself.
    { name: 'Time', type: 'date', format: 'date', description: 'When the write was made.', priority: 0 },
    { name: 'User', type: 'string', format: '', description: 'The authenticated user who made the write.', priority: 0 },
    { name: 'Manager', type: 'string', format: '', description: 'The field manager of the write.', priority: 0 },
    { name: 'Operation', type: 'string', format: '', description: 'What the write was: Create, Update, Patch, Apply, Delete, or a status write.', priority: 0 },
  ],
  cells(obj, now) {
    const o = obj as Record<string, unknown>;
    const target = (o.target ?? {}) as Record<string, unknown>;
    const user = (o.user ?? {}) as Record<string, unknown>;
    const op = typeof o.subresource === 'string' && o.subresource !== 'status' ? `${String(o.operation)} (${o.subresource})` : String(o.operation ?? '');
    return [String(target.name ?? ''), o.revision ?? 0, since(o.timestamp, now), String(user.username ?? ''), String(o.fieldManager ?? ''), op];
  },
};
