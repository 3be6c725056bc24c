// A pod with what scheduling reads of it computed once: its requests as plain numbers,
// host ports, tolerations, priority, affinity terms.
import type { KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { podTotals, type Amounts } from '../../apis/core/helpers/resources.js';
import { podTolerations, type Toleration } from '../../apis/core/helpers/taints.js';
import { controllerOf } from '../../apimachinery/owners.js';

/** Requests in the units the scheduler compares: milli-CPU, bytes, counts. */
export interface Resources {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  /** Extended and other scalar resources, by name, in whole units (hugepages in bytes). */
  scalar: Map<string, number>;
}

export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/** kube's defaults for a container without requests, used only to score (100m CPU, 200Mi). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

export function emptyResources(): Resources {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, scalar: new Map() };
}

const NANO_PER_MILLI = 1_000_000n;
const NANO_PER_UNIT = 1_000_000_000n;

function ceilDiv(a: bigint, b: bigint): number {
  return Number(a <= 0n ? 0n : (a + b - 1n) / b);
}

/** The pod's requests: containers summed, at least the largest init container, plus overhead. */
export function resourcesOf(amounts: Amounts): Resources {
  const r = emptyResources();
  for (const [name, a] of amounts) {
    if (name === 'cpu') r.milliCPU = ceilDiv(a.nano, NANO_PER_MILLI);
    else if (name === 'memory') r.memory = ceilDiv(a.nano, NANO_PER_UNIT);
    else if (name === 'ephemeral-storage') r.ephemeralStorage = ceilDiv(a.nano, NANO_PER_UNIT);
    else if (name !== 'pods') r.scalar.set(name, ceilDiv(a.nano, NANO_PER_UNIT));
  }
  return r;
}

function containers(spec: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const list = spec[key];
  return Array.isArray(list) ? list.filter(isPlainObject) : [];
}

/** CPU and memory as the scores see them: each container's missing request counts as kube's default. */
function nonZeroRequests(spec: Record<string, unknown>): { milliCPU: number; memory: number } {
  const one = (c: Record<string, unknown>): { milliCPU: number; memory: number } => {
    const r = resourcesOf(podTotals({ containers: [c] }, 'requests'));
    const requests = isPlainObject(c.resources) && isPlainObject(c.resources.requests) ? c.resources.requests : {};
    return {
      milliCPU: Object.hasOwn(requests, 'cpu') ? r.milliCPU : DEFAULT_MILLI_CPU_REQUEST,
      memory: Object.hasOwn(requests, 'memory') ? r.memory : DEFAULT_MEMORY_REQUEST,
    };
  };
  let milliCPU = 0;
  let memory = 0;
  for (const c of containers(spec, 'containers')) {
    const r = one(c);
    milliCPU += r.milliCPU;
    memory += r.memory;
  }
  for (const c of containers(spec, 'initContainers')) {
    const r = one(c);
    milliCPU = Math.max(milliCPU, r.milliCPU);
    memory = Math.max(memory, r.memory);
  }
  const overhead = resourcesOf(podTotals({ overhead: spec.overhead }, 'requests'));
  return { milliCPU: milliCPU + overhead.milliCPU, memory: memory + overhead.memory };
}

function hostPortsOf(spec: Record<string, unknown>): HostPort[] {
  const out: HostPort[] = [];
  for (const c of containers(spec, 'containers')) {
    const ports = Array.isArray(c.ports) ? c.ports.filter(isPlainObject) : [];
    for (const p of ports) {
      if (typeof p.hostPort !== 'number' || p.hostPort <= 0) continue;
      out.push({ ip: typeof p.hostIP === 'string' && p.hostIP !== '' ? p.hostIP : '0.0.0.0', protocol: typeof p.protocol === 'string' ? p.protocol : 'TCP', port: p.hostPort });
    }
  }
  return out;
}

export class PodInfo {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly requests: Resources;
  readonly nonZero: { milliCPU: number; memory: number };
  readonly hostPorts: HostPort[];
  readonly tolerations: Toleration[];
  readonly priority: number;
  readonly labels: Record<string, string>;
  readonly spec: Record<string, unknown>;
  /** The controller that owns the pod (for the default topology spreading). */
  readonly controllerUid: string | undefined;

  constructor(readonly pod: KubeObject) {
    const meta = pod.metadata ?? {};
    this.namespace = meta.namespace ?? '';
    this.name = meta.name ?? '';
    this.key = `${this.namespace}/${this.name}`;
    this.uid = meta.uid ?? '';
    this.labels = meta.labels ?? {};
    this.spec = isPlainObject(pod.spec) ? pod.spec : {};
    this.requests = resourcesOf(podTotals(this.spec, 'requests'));
    this.nonZero = nonZeroRequests(this.spec);
    this.hostPorts = hostPortsOf(this.spec);
    this.tolerations = podTolerations(pod);
    this.priority = typeof this.spec.priority === 'number' ? this.spec.priority : 0;
    this.controllerUid = controllerOf(pod)?.uid;
  }

  get nodeName(): string {
    return typeof this.spec.nodeName === 'string' ? this.spec.nodeName : '';
  }
}
