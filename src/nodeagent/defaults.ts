// The stages used when the configuration gives none for a kind: KWOK's defaults (node
// `node-initialize` and `node-heartbeat-with-lease`, pod `pod-ready`, `pod-complete` and
// `pod-delete`), with the same selectors, and their status written here as the kubelet
// writes it rather than through a template (they run for every pod: a template and a YAML
// read per pod would cost more than the write).

import { createHash } from 'node:crypto';
import { getOwn } from '../apimachinery/own.js';
import { isPlainObject, type KubeObject } from '../apimachinery/types.js';
import { rfc3339 } from '../apimachinery/time.js';
import { podConditions, withPodCondition, type PodCondition } from '../apis/core/helpers/pod.js';
import { nodeConditions, withNodeCondition, type NodeCondition } from '../apis/core/helpers/node.js';
import { KWOK_NODE_ANNOTATION, KWOK_NODE_ANNOTATION_VALUE, longDomainKey } from '../naming/index.js';
import { requirement, type Stage } from './stage.js';
import type { TemplateEnv } from './template.js';

const BUILT_IN = 'built-in';

function record(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? v : {};
}

function list(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isPlainObject) : [];
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

// ---------------------------------------------------------------------------------------
// Nodes

/** The conditions a healthy kubelet reports (KWOK's `NodeConditions`: types, reasons, messages). */
export function healthyNodeConditions(): { type: string; status: 'True' | 'False'; reason: string; message: string }[] {
  return [
    { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
    { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
    { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
    { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
    { type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', message: 'RouteController created a route' },
  ];
}

/** A simulated node's resources when its creator gave none (KWOK's default node; ephemeral storage ours). */
export const DEFAULT_NODE_RESOURCES: Readonly<Record<string, string>> = Object.freeze({
  cpu: '32',
  memory: '256Gi',
  pods: '110',
  'ephemeral-storage': '1Ti',
});

/** The node's reported facts that its creator left empty: KWOK's values, and the kubelet version given. */
export function defaultNodeInfo(kubeletVersion: string): Record<string, string> {
  return {
    architecture: 'amd64',
    bootID: '',
    containerRuntimeVersion: `kwok://${kubeletVersion}`,
    kernelVersion: '',
    kubeProxyVersion: kubeletVersion,
    kubeletVersion,
    machineID: '',
    operatingSystem: 'linux',
    osImage: '',
    systemUUID: '',
  };
}

/** A resource list with the creator's entries kept and the standard ones it lacks filled in. */
function withDefaultResources(given: unknown, fallback: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...record(fallback), ...record(given) };
  for (const [k, v] of Object.entries(DEFAULT_NODE_RESOURCES)) if (getOwn(out, k) === undefined) out[k] = v;
  return out;
}

export interface NewNodeOptions {
  /** The configuration's Node template: its labels, annotations, spec, and status resources and facts. */
  template?: KubeObject | undefined;
  internalIP: string;
  kubeletVersion: string;
}

/** A Node as `--simulated-nodes` creates it: annotated as simulated, registered as a kubelet registers. */
export function newSimulatedNode(name: string, opts: NewNodeOptions): KubeObject {
  const template = opts.template;
  const tStatus = record(template?.status);
  const nodeInfo: Record<string, string> = defaultNodeInfo(opts.kubeletVersion);
  for (const [k, v] of Object.entries(record(tStatus.nodeInfo))) if (typeof v === 'string' && v !== '') nodeInfo[k] = v;
  const arch = nodeInfo.architecture ?? 'amd64';
  const os = nodeInfo.operatingSystem ?? 'linux';
  const allocatable = withDefaultResources(tStatus.allocatable, tStatus.capacity);
  const labels: Record<string, unknown> = {
    [longDomainKey('arch', 'beta')]: arch,
    [longDomainKey('os', 'beta')]: os,
    [longDomainKey('arch')]: arch,
    [longDomainKey('os')]: os,
    type: 'kwok',
    ...record(template?.metadata?.labels),
    [longDomainKey('hostname')]: name,
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: labels as Record<string, string>,
      annotations: { ...(record(template?.metadata?.annotations) as Record<string, string>), [KWOK_NODE_ANNOTATION]: KWOK_NODE_ANNOTATION_VALUE },
    },
    spec: { ...record(template?.spec) },
    status: {
      capacity: withDefaultResources(tStatus.capacity, allocatable),
      allocatable,
      nodeInfo,
      addresses: [
        { type: 'InternalIP', address: opts.internalIP },
        { type: 'Hostname', address: name },
      ],
    },
  };
}

function nodeConditionsNow(node: KubeObject, now: string): NodeCondition[] {
  let conds = nodeConditions(node);
  for (const c of healthyNodeConditions()) conds = withNodeCondition(conds, { ...c, lastHeartbeatTime: now }, now);
  return conds;
}

/** Addresses with an InternalIP and a Hostname, the ones given kept. */
function nodeAddresses(node: KubeObject, env: TemplateEnv): Record<string, unknown>[] {
  const addresses = list(record(node.status).addresses);
  const out = [...addresses];
  if (!addresses.some((a) => a.type === 'InternalIP')) {
    const ip = env.nodeIP();
    if (ip) out.push({ type: 'InternalIP', address: ip });
  }
  if (!addresses.some((a) => a.type === 'Hostname')) out.push({ type: 'Hostname', address: node.metadata?.name ?? '' });
  return out;
}

function nodeInitializeStatus(kubeletVersion: string) {
  return (node: KubeObject, env: TemplateEnv): Record<string, unknown> => {
    const status = record(node.status);
    const now = rfc3339(env.now());
    const info: Record<string, unknown> = { ...defaultNodeInfo(kubeletVersion) };
    for (const [k, v] of Object.entries(record(status.nodeInfo))) if (typeof v === 'string' && v !== '') info[k] = v;
    const allocatable = withDefaultResources(status.allocatable, status.capacity);
    return {
      conditions: nodeConditionsNow(node, now),
      addresses: nodeAddresses(node, env),
      allocatable,
      capacity: withDefaultResources(status.capacity, allocatable),
      nodeInfo: info,
      phase: 'Running',
    };
  };
}

function nodeHeartbeatStatus(node: KubeObject, env: TemplateEnv): Record<string, unknown> {
  return { conditions: nodeConditionsNow(node, rfc3339(env.now())), addresses: nodeAddresses(node, env) };
}

/** The kubelet's `nodeStatusReportFrequency` (5 min); a tenth more as jitter, as kwokctl spreads it. */
export const NODE_STATUS_REPORT_MS = 5 * 60_000;

export function defaultNodeStages(kubeletVersion: string): Stage[] {
  const readyStatus = '.status.conditions.[] | select( .type == "Ready" ) | .status';
  return [
    {
      name: 'node-initialize',
      source: BUILT_IN,
      kind: 'Node',
      matchExpressions: [requirement(readyStatus, 'NotIn', ['True'])],
      weight: 0,
      next: { delete: false, status: nodeInitializeStatus(kubeletVersion) },
      immediateNextStage: false,
    },
    {
      name: 'node-heartbeat-with-lease',
      source: BUILT_IN,
      kind: 'Node',
      matchExpressions: [requirement('.status.phase', 'In', ['Running']), requirement(readyStatus, 'In', ['True'])],
      weight: 0,
      delay: { durationMs: NODE_STATUS_REPORT_MS, jitterMs: NODE_STATUS_REPORT_MS + NODE_STATUS_REPORT_MS / 10 },
      next: { delete: false, status: nodeHeartbeatStatus },
      immediateNextStage: false,
    },
  ];
}

// ---------------------------------------------------------------------------------------
// Pods

function hex(input: string): string {
  return createHash('sha256').update(input).digest('hex');
}

/** A container's ID in the simulated runtime: stable for the pod, the container and its restarts. */
export function containerID(pod: KubeObject, name: string, restartCount = 0): string {
  return `kwok://${hex(`${pod.metadata?.uid ?? ''}/${name}/${restartCount}`)}`;
}

/** The image's ID as a runtime reports it: the repository and a digest of the reference. */
export function imageID(image: string): string {
  if (image.includes('@')) return image;
  // A tag follows the last colon after the last slash (a registry port precedes a slash).
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  const repository = colon > slash ? image.slice(0, colon) : image;
  return `${repository}@sha256:${hex(image)}`;
}

function podStartTime(pod: KubeObject, now: string): string {
  const t = record(pod.status).startTime;
  return typeof t === 'string' && t !== '' ? t : now;
}

function runningStatus(pod: KubeObject, c: Record<string, unknown>, now: string): Record<string, unknown> {
  const name = text(c.name);
  const image = text(c.image);
  return {
    name,
    state: { running: { startedAt: now } },
    lastState: {},
    ready: true,
    restartCount: 0,
    image,
    imageID: imageID(image),
    containerID: containerID(pod, name),
    started: true,
  };
}

function completedInitStatus(pod: KubeObject, c: Record<string, unknown>, now: string): Record<string, unknown> {
  const name = text(c.name);
  const image = text(c.image);
  return {
    name,
    state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now, containerID: containerID(pod, name) } },
    lastState: {},
    ready: true,
    restartCount: 0,
    image,
    imageID: imageID(image),
    containerID: containerID(pod, name),
    started: false,
  };
}

function condition(type: string, status: 'True' | 'False', reason?: string): PodCondition {
  return { type, status, lastProbeTime: null, ...(reason ? { reason } : {}) };
}

/** Running and ready, as the kubelet reports a pod whose containers all started (KWOK's pod-ready). */
function podReadyStatus(pod: KubeObject, env: TemplateEnv): Record<string, unknown> {
  const now = rfc3339(env.now());
  const spec = record(pod.spec);
  const nodeName = text(spec.nodeName);
  const hostNetwork = spec.hostNetwork === true;
  const meta = pod.metadata ?? {};
  let conds = podConditions(pod);
  for (const type of ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled']) conds = withPodCondition(conds, condition(type, 'True'), now);
  // KWOK reports every readiness gate as met, so pods that declare them become ready too.
  for (const gate of list(spec.readinessGates)) {
    const type = text(gate.conditionType);
    if (type) conds = withPodCondition(conds, condition(type, 'True'), now);
  }
  const hostIP = env.nodeIPWith(nodeName);
  const podIP = env.podIPWith(nodeName, hostNetwork, meta.uid ?? '', meta.name ?? '', meta.namespace ?? '');
  const status: Record<string, unknown> = {
    phase: 'Running',
    conditions: conds,
    ...(hostIP ? { hostIP } : {}),
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    startTime: podStartTime(pod, now),
    containerStatuses: list(spec.containers).map((c) => runningStatus(pod, c, now)),
  };
  const inits = list(spec.initContainers);
  if (inits.length > 0) {
    // Sidecars (restartPolicy Always) keep running; the others ran to completion.
    status.initContainerStatuses = inits.map((c) => (c.restartPolicy === 'Always' ? runningStatus(pod, c, now) : completedInitStatus(pod, c, now)));
  }
  return status;
}

/**
 * Ready again: the kubelet derives a running pod's Ready and ContainersReady from its
 * containers and writes them back when someone else (the node lifecycle controller marking
 * the pods of a node it lost touch with) set them False while the containers stayed ready.
 */
function podReadyAgainStatus(pod: KubeObject, env: TemplateEnv): Record<string, unknown> {
  const now = rfc3339(env.now());
  let conds = podConditions(pod);
  for (const type of ['Ready', 'ContainersReady']) conds = withPodCondition(conds, condition(type, 'True'), now);
  return { conditions: conds };
}

/** Every container exited 0 (KWOK's pod-complete, for pods of Jobs), as the kubelet reports it. */
function podCompleteStatus(pod: KubeObject, env: TemplateEnv): Record<string, unknown> {
  const now = rfc3339(env.now());
  const previous = new Map(list(record(pod.status).containerStatuses).map((s) => [text(s.name), s]));
  let conds = podConditions(pod);
  for (const type of ['Ready', 'ContainersReady']) conds = withPodCondition(conds, condition(type, 'False', 'PodCompleted'), now);
  return {
    phase: 'Succeeded',
    conditions: conds,
    containerStatuses: list(record(pod.spec).containers).map((c) => {
      const name = text(c.name);
      const image = text(c.image);
      const before = previous.get(name);
      const restartCount = typeof before?.restartCount === 'number' ? before.restartCount : 0;
      const id = text(before?.containerID) || containerID(pod, name, restartCount);
      const startedAt = text(record(record(before?.state).running).startedAt) || now;
      return {
        name,
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: now, containerID: id } },
        lastState: {},
        ready: false,
        restartCount,
        image,
        imageID: imageID(image),
        containerID: id,
        started: false,
      };
    }),
  };
}

/** KWOK's default pod-complete runs a Job's pod for a second to five (its general stage's delay). */
export const POD_COMPLETE_DELAY_MS = 1000;
export const POD_COMPLETE_JITTER_MS = 5000;

export function defaultPodStages(): Stage[] {
  const deleting = '.metadata.deletionTimestamp';
  return [
    {
      name: 'pod-ready',
      source: BUILT_IN,
      kind: 'Pod',
      matchExpressions: [
        requirement(deleting, 'DoesNotExist'),
        requirement('.status.phase', 'In', ['Pending']),
        requirement('.status.conditions.[] | select( .type == "Ready" ) | .status', 'NotIn', ['True']),
      ],
      weight: 0,
      next: { delete: false, status: podReadyStatus },
      immediateNextStage: false,
    },
    {
      name: 'pod-ready-again',
      source: BUILT_IN,
      kind: 'Pod',
      matchExpressions: [
        requirement(deleting, 'DoesNotExist'),
        requirement('.status.phase', 'In', ['Running']),
        requirement('.status.conditions.[] | select( .type == "Ready" ) | .status', 'NotIn', ['True']),
        requirement('.status.containerStatuses.[].ready', 'In', ['true']),
        requirement('.status.containerStatuses.[].ready', 'NotIn', ['false']),
      ],
      weight: 0,
      next: { delete: false, status: podReadyAgainStatus },
      immediateNextStage: false,
    },
    {
      name: 'pod-complete',
      source: BUILT_IN,
      kind: 'Pod',
      matchExpressions: [
        requirement(deleting, 'DoesNotExist'),
        requirement('.status.phase', 'In', ['Running']),
        requirement('.metadata.ownerReferences.[].kind', 'In', ['Job']),
      ],
      weight: 0,
      delay: { durationMs: POD_COMPLETE_DELAY_MS, jitterMs: POD_COMPLETE_JITTER_MS },
      next: { delete: false, status: podCompleteStatus },
      immediateNextStage: false,
    },
    {
      name: 'pod-delete',
      source: BUILT_IN,
      kind: 'Pod',
      matchExpressions: [requirement(deleting, 'Exists')],
      weight: 0,
      next: { delete: true },
      immediateNextStage: false,
    },
  ];
}
