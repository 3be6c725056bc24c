// What an APIService says, read once into a typed shape, and the pure rules of the
// aggregation layer: where a service's requests go (endpoint routing) and which Available
// condition an APIService gets, with kube-aggregator's reasons and messages.
import type { KubeObject } from '../apimachinery/types.js';
import { DEFAULT_SERVICE_PORT } from '../apis/apiregistration/index.js';

export interface ServiceReference {
  namespace: string;
  name: string;
  port: number;
}

export interface APIServiceInfo {
  name: string;
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** Absent for a group-version this server serves itself. */
  service?: ServiceReference;
  caBundle?: Buffer;
  insecureSkipTLSVerify: boolean;
  available: boolean;
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function records(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.map(record) : [];
}

/** The Available condition of a stored APIService, if any. */
export function availableCondition(o: KubeObject): Record<string, unknown> | undefined {
  return records(record(o.status).conditions).find((c) => c.type === 'Available');
}

export function parseAPIService(o: KubeObject): APIServiceInfo {
  const spec = record(o.spec);
  const svc = spec.service === undefined || spec.service === null ? undefined : record(spec.service);
  const info: APIServiceInfo = {
    name: text(o.metadata?.name),
    group: text(spec.group),
    version: text(spec.version),
    groupPriorityMinimum: typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0,
    versionPriority: typeof spec.versionPriority === 'number' ? spec.versionPriority : 0,
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    available: availableCondition(o)?.status === 'True',
  };
  if (svc) info.service = { namespace: text(svc.namespace), name: text(svc.name), port: typeof svc.port === 'number' ? svc.port : DEFAULT_SERVICE_PORT };
  if (typeof spec.caBundle === 'string' && spec.caBundle !== '') info.caBundle = Buffer.from(spec.caBundle, 'base64');
  return info;
}

/** The outcome of a check: the condition's status, reason and message. */
export interface Availability {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** The service port an APIService's port names, or undefined. */
function servicePort(service: KubeObject, port: number): Record<string, unknown> | undefined {
  return records(record(service.spec).ports).find((p) => p.port === port);
}

export type Resolution = { ok: true; host: string; port: number } | { ok: false; message: string };

/**
 * Endpoint routing: a ready address of the service's Endpoints on the port that carries the
 * service port's name. This server runs no kube-proxy, so a cluster IP leads nowhere; every
 * request goes straight to an endpoint (kube's `--enable-aggregator-routing=true`). The
 * messages are kube's ResolveEndpoint ones. `pick` chooses among ready addresses.
 */
export function resolveEndpoint(ref: ServiceReference, service: KubeObject | undefined, endpoints: KubeObject | undefined, pick: (n: number) => number = () => 0): Resolution {
  if (!service) return { ok: false, message: `service "${ref.name}" not found` };
  const port = servicePort(service, ref.port);
  if (!port) return { ok: false, message: `no service port ${ref.port} found for service "${ref.name}"` };
  const type = text(record(service.spec).type) || 'ClusterIP';
  if (type === 'ExternalName') return { ok: false, message: `service "${ref.name}" of type ExternalName cannot be reached by endpoint routing` };
  const portName = text(port.name);
  const choices: { host: string; port: number }[] = [];
  for (const subset of records(endpoints?.subsets)) {
    const epPort = records(subset.ports).find((p) => text(p.name) === portName);
    if (!epPort || typeof epPort.port !== 'number') continue;
    for (const a of records(subset.addresses)) if (text(a.ip)) choices.push({ host: text(a.ip), port: epPort.port });
  }
  if (choices.length === 0) return { ok: false, message: `no endpoints available for service "${ref.name}"` };
  const chosen = choices[Math.min(choices.length - 1, Math.max(0, pick(choices.length)))]!;
  return { ok: true, ...chosen };
}

/**
 * The Available condition before the discovery check, as kube's availability controller
 * decides it; `undefined` means the service and endpoints pass and the remote must be asked.
 */
export function availabilityBeforeCheck(api: APIServiceInfo, service: KubeObject | undefined, endpoints: KubeObject | undefined): Availability | undefined {
  const ref = api.service;
  if (!ref) return { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };
  const where = `service/${ref.name} in ${JSON.stringify(ref.namespace)}`;
  if (!service) return { status: 'False', reason: 'ServiceNotFound', message: `${where} is not present` };
  const port = servicePort(service, ref.port);
  if (!port) return { status: 'False', reason: 'ServicePortError', message: `${where} is not listening on port ${ref.port}` };
  const type = text(record(service.spec).type) || 'ClusterIP';
  if (type === 'ClusterIP' || type === 'NodePort' || type === 'LoadBalancer') {
    if (!endpoints) return { status: 'False', reason: 'EndpointsNotFound', message: `cannot find endpoints for ${where}` };
    const portName = text(port.name);
    const ready = records(endpoints.subsets).some((s) => records(s.addresses).length > 0 && records(s.ports).some((p) => text(p.name) === portName));
    if (!ready) return { status: 'False', reason: 'MissingEndpoints', message: `endpoints for ${where} have no addresses with port name ${JSON.stringify(portName)}` };
  }
  return undefined;
}

/** The condition after the discovery check: `error` is what went wrong asking the remote. */
export function availabilityAfterCheck(url: string, error: string | undefined): Availability {
  if (error !== undefined) return { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}: ${error}` };
  return { status: 'True', reason: 'Passed', message: 'all checks passed' };
}

/** Whether an APIService's status already says this (the transition time is kept when the status stays). */
export function sameCondition(o: KubeObject, a: Availability): boolean {
  const c = availableCondition(o);
  return c !== undefined && c.status === a.status && c.reason === a.reason && c.message === a.message;
}

/** The APIService with its Available condition set; lastTransitionTime moves only when the status changes. */
export function withCondition(o: KubeObject, a: Availability, now: Date): KubeObject {
  const out = structuredClone(o);
  const status = record(out.status);
  const conditions = records(status.conditions).filter((c) => c.type !== 'Available');
  const old = availableCondition(o);
  const time = old && old.status === a.status && typeof old.lastTransitionTime === 'string' ? old.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  conditions.push({ type: 'Available', status: a.status, lastTransitionTime: time, reason: a.reason, message: a.message });
  out.status = { ...status, conditions };
  return out;
}
