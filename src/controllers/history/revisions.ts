// ControllerRevisions (kube's pkg/controller/history, as the StatefulSet and DaemonSet
// controllers use it): a snapshot of an owner's pod template kept as the strategic merge patch
// that puts it back (`kubectl rollout undo` applies `data` as is), numbered in order, named
// `<owner>-<hash>`. Pure functions; the controllers do the I/O.
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { newControllerRef } from '../../apimachinery/owners.js';
import { canonicalJSON, safeEncodeString } from '../deployment/hash.js';

export const CONTROLLERREVISIONS: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'controllerrevisions' };

/** The label every workload pod carries with its revision (no domain, as in kube). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

/**
 * The patch a revision stores: `{"spec":{"template":{...,"$patch":"replace"}}}`, the template
 * with its keys sorted (kube marshals it through a map), replacing the owner's template whole.
 */
export function templatePatch(owner: KubeObject): Record<string, unknown> {
  const spec = isPlainObject(owner.spec) ? owner.spec : {};
  const template = isPlainObject(spec.template) ? spec.template : {};
  const sorted = JSON.parse(canonicalJSON({ ...template, $patch: 'replace' })) as Record<string, unknown>;
  return { spec: { template: sorted } };
}

/** The template a revision holds (its patch without the directive). */
export function templateOfRevision(revision: KubeObject): Record<string, unknown> {
  const data = isPlainObject(revision.data) ? revision.data : {};
  const spec = isPlainObject(data.spec) ? data.spec : {};
  const template = isPlainObject(spec.template) ? { ...spec.template } : {};
  delete template.$patch;
  return template;
}

export function revisionNumber(revision: KubeObject): number {
  const n = revision.revision;
  return typeof n === 'number' ? n : typeof n === 'bigint' ? Number(n) : 0;
}

/** One past the highest revision number (1 for none). */
export function nextRevisionNumber(revisions: readonly KubeObject[]): number {
  return revisions.reduce((m, r) => Math.max(m, revisionNumber(r)), 0) + 1;
}

/** The revisions in ascending revision number (names break ties). */
export function sortRevisions(revisions: readonly KubeObject[]): KubeObject[] {
  return [...revisions].sort((a, b) => revisionNumber(a) - revisionNumber(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

/** Revisions hold the same state when their data are equal. */
export function sameData(a: KubeObject, b: KubeObject): boolean {
  return canonicalJSON(a.data ?? null) === canonicalJSON(b.data ?? null);
}

export interface NewRevisionOptions {
  owner: KubeObject;
  apiVersion: string;
  kind: string;
  data: Record<string, unknown>;
  revision: number;
  /** The hash the name carries. */
  hash: string;
  labels: Record<string, string>;
}

/** A revision object ready to create: controlled by the owner, carrying its annotations. */
export function newRevision(o: NewRevisionOptions): KubeObject {
  const annotations = o.owner.metadata?.annotations;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      // kube keeps the name within 253 characters by cutting the owner's name at 223.
      name: `${(o.owner.metadata?.name ?? '').slice(0, 223)}-${o.hash}`,
      namespace: o.owner.metadata?.namespace,
      labels: o.labels,
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
      ownerReferences: [newControllerRef(o.owner, o.apiVersion, o.kind)],
    },
    data: o.data,
    revision: o.revision,
  };
}

/** `canonicalJSON` escaped as Go's encoding/json writes strings (`<`, `>`, `&`, U+2028, U+2029). */
export function goJSON(value: unknown): string {
  return canonicalJSON(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The hash of a revision's data with the owner's collision count, as kube's
 * HashControllerRevision computes it: FNV-1 (32 bits) over the data's JSON (keys sorted, as Go
 * marshals a map) and the count in decimal, printed in decimal through the safe alphabet.
 */
export function hashOfData(data: unknown, collisionCount: number | undefined): string {
  let h = 0x811c9dc5;
  const bytes = new TextEncoder().encode(goJSON(data) + (collisionCount !== undefined ? String(collisionCount) : ''));
  for (const b of bytes) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return safeEncodeString(String(h >>> 0));
}

/**
 * The revisions to delete to keep `limit` of those not in use: the oldest first, never one
 * named in `inUse` (the current and update revisions, those live pods carry).
 */
export function revisionsToPrune(revisions: readonly KubeObject[], inUse: ReadonlySet<string>, limit: number): KubeObject[] {
  const unused = sortRevisions(revisions).filter((r) => !inUse.has(r.metadata?.name ?? ''));
  const excess = unused.length - Math.max(0, limit);
  return excess > 0 ? unused.slice(0, excess) : [];
}
