// `metadata.managedFields` read into per-manager field sets and written back. A manager is
// identified by its name, operation, subresource and, for updates, the API version: entries
// that agree on those merge into one.
import type { ManagedFieldsEntry } from '../apimachinery/types.js';
import { FieldSet } from './fieldpath.js';

export type ManagedOperation = 'Apply' | 'Update';

export interface ManagerEntry {
  manager: string;
  operation: ManagedOperation;
  apiVersion: string;
  subresource?: string;
  /** RFC 3339 seconds; absent when the entry never recorded a change. */
  time?: string;
  set: FieldSet;
}

/** Field ownership of one object, by manager identifier. */
export type ManagedFields = Map<string, ManagerEntry>;

/**
 * The identity of a manager: appliers are one manager whatever version they apply in,
 * updaters are one per API version.
 */
export function managerIdentifier(e: { manager: string; operation: ManagedOperation; apiVersion: string; subresource?: string }): string {
  const id: Record<string, string> = {};
  if (e.manager) id.manager = e.manager;
  id.operation = e.operation;
  if (e.operation === 'Update' && e.apiVersion) id.apiVersion = e.apiVersion;
  if (e.subresource) id.subresource = e.subresource;
  return JSON.stringify(id);
}

/** `[{}]`: the request asks to drop every entry. */
export function isResetManagedFields(value: unknown): boolean {
  return Array.isArray(value) && value.length === 1 && value[0] !== null && typeof value[0] === 'object' && Object.keys(value[0] as object).length === 0;
}

/** Reads `metadata.managedFields`; throws an Error describing the first invalid entry. */
export function decodeManagedFields(value: unknown): ManagedFields {
  const out: ManagedFields = new Map();
  if (value === undefined || value === null) return out;
  if (!Array.isArray(value)) throw new Error('managedFields must be a list');
  value.forEach((raw, i) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`managed fields entry ${i} must be an object`);
    const e = raw as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion.length === 0) throw new Error('apiVersion must not be empty');
    if (e.fieldsType === undefined || (e.fieldsType as string) === '') throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const entry: ManagerEntry = {
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      set: e.fieldsV1 === undefined ? new FieldSet() : FieldSet.fromFieldsV1(e.fieldsV1),
    };
    if (e.subresource) entry.subresource = e.subresource;
    if (e.time) entry.time = e.time;
    const id = managerIdentifier(entry);
    if (out.has(id)) throw new Error(`duplicate entries for manager ${id}`);
    out.set(id, entry);
  });
  return out;
}

/** Appliers first, then by time, manager, version and subresource, as Kubernetes orders them. */
function compareEntries(a: ManagerEntry, b: ManagerEntry): number {
  const by = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  return (
    by(a.operation, b.operation) ||
    by(a.time ?? '', b.time ?? '') ||
    by(a.manager, b.manager) ||
    by(a.apiVersion, b.apiVersion) ||
    by(a.subresource ?? '', b.subresource ?? '')
  );
}

/** The `metadata.managedFields` list; entries owning nothing are left out. */
export function encodeManagedFields(managed: ManagedFields): ManagedFieldsEntry[] {
  const entries = [...managed.values()].filter((e) => !e.set.empty()).sort(compareEntries);
  return entries.map((e) => {
    // Field order and omitted empty values as Go's encoder writes the entry.
    const out: ManagedFieldsEntry = {};
    if (e.manager) out.manager = e.manager;
    out.operation = e.operation;
    out.apiVersion = e.apiVersion;
    if (e.time) out.time = e.time;
    out.fieldsType = 'FieldsV1';
    out.fieldsV1 = e.set.toFieldsV1();
    if (e.subresource) out.subresource = e.subresource;
    return out;
  });
}

/** How many Update entries an object keeps before the oldest are folded together. */
export const DEFAULT_MAX_UPDATE_MANAGERS = 10;
/** The manager name of the folded entries, one per API version. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

/**
 * Keeps the number of Update entries at `max`: from the oldest on, entries of an API version
 * already seen are folded into that version's `ancient-changes` entry (with the first one
 * seen), which takes the time of the latest entry folded in.
 */
export function capUpdateManagers(managed: ManagedFields, max = DEFAULT_MAX_UPDATE_MANAGERS): void {
  const updaters = [...managed.entries()].filter(([, e]) => e.operation === 'Update');
  if (updaters.length <= max) return;
  updaters.sort(([ia, a], [ib, b]) => {
    const ta = a.time ?? '';
    const tb = b.time ?? '';
    if (ta !== tb) return ta < tb ? -1 : 1;
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  });
  const firstOfVersion = new Map<string, string>();
  let count = updaters.length;
  for (const [id, entry] of updaters) {
    if (count <= max) break;
    const bucket: ManagerEntry = { manager: ANCIENT_CHANGES_MANAGER, operation: 'Update', apiVersion: entry.apiVersion, set: entry.set };
    const bucketId = managerIdentifier(bucket);
    const first = firstOfVersion.get(entry.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(entry.apiVersion, id);
      continue;
    }
    const existing = managed.get(bucketId);
    const base = existing ?? managed.get(first);
    if (!existing) managed.delete(first);
    bucket.set = entry.set.union(base?.set ?? new FieldSet());
    if (entry.time) bucket.time = entry.time;
    managed.delete(id);
    managed.set(bucketId, bucket);
    count--;
  }
}
