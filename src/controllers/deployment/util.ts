// The rollout arithmetic of kube's deployment controller as pure functions over Deployments
// and ReplicaSets: surge and unavailability fenceposts, revisions, annotations, the
// proportional share of a scale, completeness, progress and time-outs.
import type { KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { longDomainKey } from '../../naming/index.js';

export const DEFAULT_LABEL_KEY = 'pod-template-hash';

/** `deployment.kubernetes.io/<name>` (`deployment.orch.io/<name>` in the orch flavor). */
export function deploymentAnnotation(name: 'revision' | 'revision-history' | 'desired-replicas' | 'max-replicas'): string {
  return longDomainKey(name, 'deployment');
}

/** Deployment annotations not copied onto its ReplicaSets. */
export function annotationsNotCopied(): string[] {
  return [
    longDomainKey('last-applied-configuration', 'kubectl'),
    deploymentAnnotation('revision'),
    deploymentAnnotation('revision-history'),
    deploymentAnnotation('desired-replicas'),
    deploymentAnnotation('max-replicas'),
    'deprecated.deployment.rollback.to',
  ];
}

/** A count, or a percentage of `total` rounded up or down (intstr's GetScaledValueFromIntOrPercent). */
export function scaledValue(v: number | string | undefined, total: number, roundUp: boolean, fallback: string): number {
  const x = v ?? fallback;
  if (typeof x === 'number') return x;
  const m = /^(\d+)%$/.exec(x);
  if (!m) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  const f = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(f) : Math.floor(f);
}

export interface DeploymentSpec {
  replicas?: number;
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: unknown };
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  paused?: boolean;
}

export interface Condition {
  type: string;
  status: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  collisionCount?: number;
  conditions?: Condition[];
}

interface RSStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

export function dSpec(d: KubeObject): DeploymentSpec {
  return (isPlainObject(d.spec) ? d.spec : {}) as DeploymentSpec;
}

export function dStatus(d: KubeObject): DeploymentStatus {
  return (isPlainObject(d.status) ? d.status : {}) as DeploymentStatus;
}

export function rsStatus(rs: KubeObject): RSStatus {
  return (isPlainObject(rs.status) ? rs.status : {}) as RSStatus;
}

export function replicasOf(o: KubeObject): number {
  const n = (o.spec as { replicas?: number } | undefined)?.replicas;
  return typeof n === 'number' ? n : 1;
}

export function isRollingUpdate(d: KubeObject): boolean {
  return (dSpec(d).strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

/** maxSurge and maxUnavailable as counts: surge rounds up, unavailability down; never both 0. */
export function resolveFenceposts(d: KubeObject): { surge: number; unavailable: number } {
  const ru = dSpec(d).strategy?.rollingUpdate ?? {};
  const desired = replicasOf(d);
  const surge = scaledValue(ru.maxSurge, desired, true, '25%');
  let unavailable = scaledValue(ru.maxUnavailable, desired, false, '25%');
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: KubeObject): number {
  return isRollingUpdate(d) ? resolveFenceposts(d).surge : 0;
}

export function maxUnavailable(d: KubeObject): number {
  const desired = replicasOf(d);
  if (!isRollingUpdate(d) || desired === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, desired);
}

export function revisionOf(o: KubeObject): number {
  const v = o.metadata?.annotations?.[deploymentAnnotation('revision')];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : 0;
}

export function intAnnotation(o: KubeObject, key: string): number | undefined {
  const v = o.metadata?.annotations?.[key];
  return v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined;
}

/** The template without the pod-template-hash label, for comparing a Deployment's with a ReplicaSet's. */
export function templateWithoutHash(template: unknown): unknown {
  if (!isPlainObject(template)) return template;
  const t = structuredClone(template) as { metadata?: { labels?: Record<string, string> } };
  if (t.metadata?.labels) {
    delete t.metadata.labels[DEFAULT_LABEL_KEY];
    if (Object.keys(t.metadata.labels).length === 0) delete t.metadata.labels;
  }
  if (t.metadata && Object.keys(t.metadata).length === 0) delete t.metadata;
  return t;
}

function created(o: KubeObject): number {
  return Date.parse(o.metadata?.creationTimestamp ?? '') || 0;
}

/** Oldest first, ties by name (kube's ReplicaSetsByCreationTimestamp). */
export function byCreation(a: KubeObject, b: KubeObject): number {
  return created(a) - created(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

/** Larger first, ties newer first (`newer`) or older first. */
export function bySize(newer: boolean) {
  return (a: KubeObject, b: KubeObject): number => {
    const d = replicasOf(b) - replicasOf(a);
    if (d !== 0) return d;
    return newer ? byCreation(b, a) : byCreation(a, b);
  };
}

export const sumSpec = (rss: readonly KubeObject[]): number => rss.reduce((s, r) => s + replicasOf(r), 0);
export const sumStatus = (rss: readonly KubeObject[], f: keyof RSStatus): number => rss.reduce((s, r) => s + Number(rsStatus(r)[f] ?? 0), 0);

/** The scale share of `rs` in adding `toAdd` replicas (negative to remove) across ReplicaSets, `added` so far. */
export function proportion(rs: KubeObject, d: KubeObject, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: KubeObject, d: KubeObject): number {
  if (replicasOf(d) === 0) return -replicasOf(rs);
  const deploymentReplicas = replicasOf(d) + maxSurge(d);
  const annotated = intAnnotation(rs, deploymentAnnotation('max-replicas')) ?? dStatus(d).replicas ?? 0;
  if (annotated === 0) return 0;
  // Go's math.Round: halves away from zero.
  const size = (replicasOf(rs) * deploymentReplicas) / annotated;
  return Math.sign(size) * Math.round(Math.abs(size)) - replicasOf(rs);
}

/** How many replicas the new ReplicaSet should have now (kube's NewRSNewReplicas). */
export function newRSNewReplicas(d: KubeObject, all: readonly KubeObject[], newRS: KubeObject): number {
  if (!isRollingUpdate(d)) return replicasOf(d);
  if (replicasOf(newRS) === replicasOf(d)) return replicasOf(newRS);
  const maxTotal = replicasOf(d) + maxSurge(d);
  const current = sumSpec(all);
  if (current >= maxTotal) return replicasOf(newRS);
  const up = Math.min(maxTotal - current, replicasOf(d) - replicasOf(newRS));
  return replicasOf(newRS) + up;
}

export function deploymentComplete(d: KubeObject, s: DeploymentStatus): boolean {
  const want = replicasOf(d);
  return (s.updatedReplicas ?? 0) === want && (s.replicas ?? 0) === want && (s.availableReplicas ?? 0) === want && (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
}

export function deploymentProgressing(d: KubeObject, s: DeploymentStatus): boolean {
  const old = dStatus(d);
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** `progressDeadlineSeconds` set and not MaxInt32 (kube's "no deadline"). */
export function hasProgressDeadline(d: KubeObject): boolean {
  const p = dSpec(d).progressDeadlineSeconds;
  return typeof p === 'number' && p !== 2147483647;
}

export function deploymentTimedOut(d: KubeObject, s: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = s.conditions?.find((x) => x.type === 'Progressing');
  if (!c) return false;
  if (c.reason === 'NewReplicaSetAvailable') return false;
  if (c.reason === 'ProgressDeadlineExceeded') return true;
  const from = Date.parse(c.lastUpdateTime ?? '');
  return Number.isFinite(from) && from + (dSpec(d).progressDeadlineSeconds ?? 0) * 1000 < nowMs;
}

/** Sets a condition as kube's SetDeploymentCondition: unchanged status and reason keep the old one. */
export function setCondition(conditions: Condition[], c: Condition): Condition[] {
  const cur = conditions.find((x) => x.type === c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return conditions;
  const next = cur && cur.status === c.status ? { ...c, lastTransitionTime: cur.lastTransitionTime } : c;
  return [...conditions.filter((x) => x.type !== c.type), next];
}

/** Go's `%q` of a name. */
export function quote(s: string): string {
  return JSON.stringify(s);
}
