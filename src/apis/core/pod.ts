// Pods: defaults, the initial status (Pending with its QoS class), what updates may change,
// the field selectors kubelets and schedulers use, and the `kubectl get pods` columns.
import { forbiddenField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { quantityNanos } from '../../schema/quantity.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since, wide } from '../table.js';
import { arr, at, clone, meta, obj, objs, str, type JsonObject } from '../util.js';
import { defaultPodSpec, validatePodSpec } from './podspec.js';
import { validateIP } from './ip-validation.js';
import { integerValue } from '../validation.js';
import { setOwn } from '../../apimachinery/own.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { podConnectSubresources } from './connect.js';

/** BestEffort, Burstable or Guaranteed from the containers' CPU and memory requests and limits. */
export function podQOSClass(spec: unknown): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const containers = [...objs(obj(spec)?.containers), ...objs(obj(spec)?.initContainers)];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = obj(c.resources) ?? {};
    const requests = obj(res.requests) ?? {};
    const limits = obj(res.limits) ?? {};
    for (const r of ['cpu', 'memory']) {
      const req = quantityNanos(requests[r]);
      const lim = quantityNanos(limits[r]);
      if ((req !== undefined && req > 0n) || (lim !== undefined && lim > 0n)) any = true;
      if (lim === undefined || lim <= 0n || (req !== undefined && req !== lim)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** The spec with every field an update may change replaced by the old value. */
function maskMutable(spec: JsonObject, old: JsonObject): JsonObject {
  const masked = clone(spec);
  for (const key of ['containers', 'initContainers'] as const) {
    const now = objs(masked[key]);
    const before = objs(old[key]);
    now.forEach((c, i) => {
      if (before[i]) c.image = before[i].image;
    });
  }
  masked.activeDeadlineSeconds = old.activeDeadlineSeconds;
  // Tolerations may only grow: existing ones must stay as they were.
  const oldTol = arr(old.tolerations);
  const newTol = arr(masked.tolerations);
  if (oldTol.every((t) => newTol.some((n) => deepEqual(n, t)))) masked.tolerations = old.tolerations;
  const oldGrace = integerValue(old.terminationGracePeriodSeconds);
  if (oldGrace !== undefined && oldGrace < 0n && masked.terminationGracePeriodSeconds === 1) {
    masked.terminationGracePeriodSeconds = oldGrace;
  }
  // Scheduling gates may be removed.
  const oldGates = arr(old.schedulingGates);
  const newGates = arr(masked.schedulingGates);
  if (newGates.every((g) => oldGates.some((o) => deepEqual(o, g)))) masked.schedulingGates = old.schedulingGates;
  for (const k of Object.keys(masked)) if (masked[k] === undefined) delete masked[k];
  return masked;
}

function validatePodUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const spec = obj(o.spec);
  const oldSpec = obj(old.spec);
  if (!spec || !oldSpec) return [];
  const errs: FieldError[] = [];
  const nowContainers = objs(spec.containers);
  const oldContainers = objs(oldSpec.containers);
  if (nowContainers.length !== oldContainers.length) {
    errs.push(forbiddenField('spec.containers', 'pod updates may not add or remove containers'));
    return errs;
  }
  const oldForCompare = clone(oldSpec);
  for (const k of Object.keys(oldForCompare)) if (oldForCompare[k] === undefined) delete oldForCompare[k];
  if (!deepEqual(maskMutable(spec, oldSpec), oldForCompare)) errs.push(forbiddenField('spec', POD_UPDATE_FORBIDDEN));
  return errs;
}

/**
 * `status.podIPs` must hold IP addresses (a lone `status.podIP` counts as the first, as the
 * v1 conversion makes it): `127.1` or a name is refused, as 1.27 refuses it.
 */
function validatePodIPs(o: KubeObject): FieldError[] {
  const ips = objs(at(o, 'status.podIPs'));
  const listed = ips.length > 0 ? ips.map((p) => p.ip) : at(o, 'status.podIP') !== undefined && at(o, 'status.podIP') !== '' ? [at(o, 'status.podIP')] : [];
  return listed.flatMap((ip, i) => validateIP(ip, `status.podIPs[${i}]`));
}

function podIP(o: KubeObject): string {
  const ips = objs(at(o, 'status.podIPs'));
  return str(ips[0]?.ip) ?? str(at(o, 'status.podIP')) ?? '';
}

interface ContainerStatus {
  restartCount: number;
  ready: boolean;
  state: JsonObject;
  lastTerminatedAt?: string;
}

function containerStatuses(value: unknown): ContainerStatus[] {
  return objs(value).map((c) => ({
    restartCount: typeof c.restartCount === 'number' ? c.restartCount : 0,
    ready: c.ready === true,
    state: obj(c.state) ?? {},
    lastTerminatedAt: str(obj(obj(c.lastState)?.terminated)?.finishedAt),
  }));
}

function terminatedReason(t: JsonObject, prefix: string): string {
  const reason = str(t.reason) ?? '';
  if (reason !== '') return `${prefix}${reason}`;
  const signal = typeof t.signal === 'number' ? t.signal : 0;
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${typeof t.exitCode === 'number' ? t.exitCode : 0}`;
}

/** The Ready, Status and Restarts cells as kubectl computes them. */
function podStatusCells(o: KubeObject, now: Date): { ready: string; status: string; restarts: string } {
  const spec = obj(o.spec) ?? {};
  const status = obj(o.status) ?? {};
  const total = objs(spec.containers).length;
  const initCount = objs(spec.initContainers).length;
  const conditions = objs(status.conditions);
  let reason = str(status.reason) || str(status.phase) || '';
  if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  let restarts = 0;
  let readyCount = 0;
  let lastRestart = 0;
  const noteRestart = (at?: string): void => {
    const t = at ? Date.parse(at) : NaN;
    if (!Number.isNaN(t) && t > lastRestart) lastRestart = t;
  };

  let initializing = false;
  const inits = containerStatuses(status.initContainerStatuses);
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i];
    restarts += c.restartCount;
    noteRestart(c.lastTerminatedAt);
    const terminated = obj(c.state.terminated);
    const waiting = obj(c.state.waiting);
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (terminated) reason = terminatedReason(terminated, 'Init:');
    else if (waiting && str(waiting.reason) && waiting.reason !== 'PodInitializing') reason = `Init:${String(waiting.reason)}`;
    else reason = `Init:${i}/${initCount}`;
    initializing = true;
    break;
  }
  if (!initializing) {
    restarts = 0;
    let hasRunning = false;
    const cs = containerStatuses(status.containerStatuses);
    for (let i = cs.length - 1; i >= 0; i--) {
      const c = cs[i];
      restarts += c.restartCount;
      noteRestart(c.lastTerminatedAt);
      const waiting = obj(c.state.waiting);
      const terminated = obj(c.state.terminated);
      if (waiting && str(waiting.reason)) reason = String(waiting.reason);
      else if (terminated) reason = terminatedReason(terminated, '');
      else if (c.ready && obj(c.state.running)) {
        hasRunning = true;
        readyCount++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }
  if (meta(o).deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';

  const restartsText = lastRestart > 0 ? `${restarts} (${since(new Date(lastRestart).toISOString(), now)} ago)` : String(restarts);
  return { ready: `${readyCount}/${total}`, status: reason, restarts: restartsText };
}

function readinessGates(o: KubeObject): string {
  const gates = objs(at(o, 'spec.readinessGates'));
  if (gates.length === 0) return '<none>';
  const conditions = objs(at(o, 'status.conditions'));
  const ok = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${ok}/${gates.length}`;
}

const none = (v: string | undefined): string => (v ? v : '<none>');

/** The longest grace period a deletion waits (2^31-1 s, 68 years): its deletion time stays a valid timestamp. */
const MAX_GRACE_PERIOD_SECONDS = 2 ** 31 - 1;

/**
 * How long a deleted pod stays for its kubelet to stop it: the asked grace period, else the
 * pod's own; at once when no node runs it or it has finished.
 */
function podGracePeriod(o: KubeObject, opts: { gracePeriodSeconds?: number }): number {
  const own = integerValue(at(o, 'spec.terminationGracePeriodSeconds'));
  let period = opts.gracePeriodSeconds ?? (own === undefined ? 0 : Number(own));
  if (!str(at(o, 'spec.nodeName'))) period = 0;
  const phase = at(o, 'status.phase');
  if (phase === 'Succeeded' || phase === 'Failed') period = 0;
  // A valid int64 grace period (up to 2^63 s) would put the deletion time past any timestamp;
  // no node agent waits longer than this anyway.
  return period < 0 ? 1 : Math.min(period, MAX_GRACE_PERIOD_SECONDS);
}

export const pods: KindSpec = {
  // Kubernetes' store for this kind answers a completed delete with the object.
  returnDeletedObject: true,
  defaults(o) {
    const spec = obj(o.spec);
    if (spec) defaultPodSpec(spec);
  },
  prepareForCreate(o) {
    const status: JsonObject = { phase: 'Pending', qosClass: podQOSClass(o.spec) };
    // Gated pods say so from the start, so schedulers and users see why they wait.
    if (arr(at(o, 'spec.schedulingGates')).length > 0) {
      status.conditions = [
        { type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' },
      ];
    }
    o.status = status;
  },
  statusProtectedMeta: ['ownerReferences'],
  validate(o) {
    return [...validatePodSpec(o.spec, 'spec'), ...validatePodIPs(o)];
  },
  validateCreate(o) {
    // Ephemeral containers are added to running pods only, through their subresource.
    if (arr(at(o, 'spec.ephemeralContainers')).length > 0) return [forbiddenField('spec.ephemeralContainers', 'cannot be set on create')];
    return [];
  },
  validateUpdate: validatePodUpdate,
  subresources: {
    ephemeralcontainers: {
      serving: {
        by: 'part',
        part: {
          prepareForUpdate: (o, old) => prepareEphemeralContainersUpdate(o, old),
          validateUpdate: (o, old) => [...validatePodSpec(o.spec, 'spec'), ...validateEphemeralContainersUpdate(o, old)],
        },
      },
    },
    binding: { serving: { by: 'handler', handler: 'PodBinding' } },
    eviction: { serving: { by: 'handler', handler: 'PodEviction' } },
    ...podConnectSubresources,
  },
  gracefulDeletePeriod: podGracePeriod,
  fields: {
    'spec.nodeName': (o) => str(at(o, 'spec.nodeName')) ?? '',
    'spec.restartPolicy': (o) => str(at(o, 'spec.restartPolicy')) ?? '',
    'spec.schedulerName': (o) => str(at(o, 'spec.schedulerName')) ?? '',
    'spec.serviceAccountName': (o) => str(at(o, 'spec.serviceAccountName')) ?? '',
    'spec.hostNetwork': (o) => String(at(o, 'spec.hostNetwork') === true),
    'status.phase': (o) => str(at(o, 'status.phase')) ?? '',
    'status.podIP': podIP,
    'status.nominatedNodeName': (o) => str(at(o, 'status.nominatedNodeName')) ?? '',
  },
  table: {
    columns: [
      nameColumn,
      column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
      column('Status', 'string', 'The aggregate status of the containers in this pod.'),
      column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
      ageColumn,
      wide('IP', 'string', 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.'),
      wide('Node', 'string', 'NodeName is a request to schedule this pod onto a specific node.'),
      wide('Nominated Node', 'string', 'nominatedNodeName is set when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.'),
      wide('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.'),
    ],
    cells(o, now) {
      const s = podStatusCells(o, now);
      return [
        meta(o).name ?? '',
        s.ready,
        s.status,
        s.restarts,
        since(meta(o).creationTimestamp, now),
        none(podIP(o)),
        none(str(at(o, 'spec.nodeName'))),
        none(str(at(o, 'status.nominatedNodeName'))),
        readinessGates(o),
      ];
    },
  },
};

/**
 * The `pods/x/ephemeralcontainers` update: only `spec.ephemeralContainers` changes; the
 * rest, metadata included, is the stored pod's. Exported for that subresource's handler.
 */
export function prepareEphemeralContainersUpdate(o: KubeObject, old: KubeObject): void {
  const ephemeral = at(o, 'spec.ephemeralContainers');
  const m = meta(o);
  const keep = { name: m.name, namespace: m.namespace, resourceVersion: m.resourceVersion, uid: m.uid };
  for (const key of Object.keys(o)) if (key !== 'apiVersion' && key !== 'kind') delete o[key];
  for (const [key, value] of Object.entries(old)) if (key !== 'apiVersion' && key !== 'kind') setOwn(o, key, clone(value));
  const newMeta = (o.metadata ??= {});
  for (const [k, v] of Object.entries(keep)) if (v !== undefined) (newMeta as Record<string, unknown>)[k] = v;
  const spec = obj(o.spec) ?? {};
  o.spec = spec;
  if (ephemeral === undefined) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = clone(ephemeral);
}

/** Ephemeral containers may be added, never changed or removed. */
export function validateEphemeralContainersUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const now = new Map(objs(at(o, 'spec.ephemeralContainers')).map((c) => [str(c.name) ?? '', c]));
  const errs: FieldError[] = [];
  for (const c of objs(at(old, 'spec.ephemeralContainers'))) {
    const name = str(c.name) ?? '';
    const current = now.get(name);
    // Kubernetes ends these messages with a line break (a diff follows a change).
    if (!current) errs.push(forbiddenField('spec.ephemeralContainers', `existing ephemeral containers "${name}" may not be removed\n`));
    else if (!deepEqual(current, c)) errs.push(forbiddenField('spec.ephemeralContainers', `existing ephemeral containers "${name}" may not be changed\n`));
  }
  return errs;
}
