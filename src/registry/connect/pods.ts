// The connect subresources of pods, as kube-apiserver serves them: `proxy` to the pod's IP
// (global unicast only), `log` from the node agent's `/containerLogs/...`, and `exec`,
// `attach` and `portforward` as upgrades joined to the agent's `/exec/...`, `/attach/...`
// and `/portForward/...`. Without a node, `log` answers an empty log and the others 400
// `pod x does not have a host assigned`; an agent that cannot be reached is named in the error.
import { badRequest, ApiError, forbiddenField, invalid, invalidField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { ADDRESS_NOT_ALLOWED, defaultAddressPolicy, escapePath, joinHostPort, joinPreserveTrailingSlash, splitSchemeNamePort, targetURL, type AddressPolicy } from '../../proxy/location.js';
import { fetchUpstream, UpstreamError } from '../../proxy/transport.js';
import type { ConnectRequest, RequestContext, RESTStore, SimulatedNodes } from '../../rest/index.js';
import { dialErrorText, forward } from './forward.js';
import { unknownError, type NodeConnections } from './kubelet.js';
import { proxyRedirect, proxyTarget, rawQuery } from './redirect.js';

function record(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? (v as Record<string, unknown>) : {};
}

function list(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.map(record) : [];
}

// -----------------------------------------------------------------------------------------
// Query options, decoded as Kubernetes' parameter codec decodes them.

/** Go's query bool: absent is false, `0` and `false` (any case) are false, anything else true. */
function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** A query int64 as Go's strconv.ParseInt reads it; the error is the 400 Kubernetes answers. */
function queryInt(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n > 9223372036854775807n || n < -9223372036854775808n) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  // Beyond 2^53 the exact value does not matter: every bound checked is small.
  return Number(n);
}

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** PodLogOptions from the query, validated as Kubernetes' ValidatePodLogOptions. */
export function podLogOptions(name: string, q: URLSearchParams): PodLogOptions {
  const opts: PodLogOptions = {
    container: q.get('container') ?? '',
    follow: queryBool(q, 'follow') ?? false,
    previous: queryBool(q, 'previous') ?? false,
    timestamps: queryBool(q, 'timestamps') ?? false,
  };
  const sinceSeconds = queryInt(q, 'sinceSeconds');
  const tailLines = queryInt(q, 'tailLines');
  const limitBytes = queryInt(q, 'limitBytes');
  const sinceTime = q.get('sinceTime');
  if (sinceTime !== null) {
    if (!RFC3339.test(sinceTime) || Number.isNaN(Date.parse(sinceTime))) {
      throw badRequest(`parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTime)} as "2006"`);
    }
    // metav1.Time keeps whole seconds, in UTC.
    opts.sinceTime = new Date(Math.floor(Date.parse(sinceTime) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  if (sinceSeconds !== undefined) opts.sinceSeconds = sinceSeconds;
  if (tailLines !== undefined) opts.tailLines = tailLines;
  if (limitBytes !== undefined) opts.limitBytes = limitBytes;
  const errs: FieldError[] = [];
  if (tailLines !== undefined && tailLines < 0) errs.push(invalidField('tailLines', tailLines, 'must be greater than or equal to 0'));
  if (limitBytes !== undefined && limitBytes < 1) errs.push(invalidField('limitBytes', limitBytes, 'must be greater than 0'));
  if (sinceSeconds !== undefined && opts.sinceTime !== undefined) errs.push(forbiddenField('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (sinceSeconds !== undefined && sinceSeconds < 1) errs.push(invalidField('sinceSeconds', sinceSeconds, 'must be greater than 0'));
  if (errs.length > 0) throw invalid({ group: '', kind: 'PodLogOptions' }, name, errs);
  return opts;
}

/** The node agent's query for a log request (Go's url.Values.Encode: sorted keys). */
export function kubeletLogQuery(o: PodLogOptions): string {
  const p: [string, string][] = [];
  if (o.follow) p.push(['follow', 'true']);
  if (o.limitBytes !== undefined) p.push(['limitBytes', String(o.limitBytes)]);
  if (o.previous) p.push(['previous', 'true']);
  if (o.sinceSeconds !== undefined) p.push(['sinceSeconds', String(o.sinceSeconds)]);
  if (o.sinceTime !== undefined) p.push(['sinceTime', o.sinceTime]);
  if (o.tailLines !== undefined) p.push(['tailLines', String(o.tailLines)]);
  if (o.timestamps) p.push(['timestamps', 'true']);
  return new URLSearchParams(p).toString();
}

/**
 * The node agent's query for exec and attach (stdin/stdout/stderr/tty as input/output/error/tty,
 * each `command`) and port-forward (`port`). Stdout and stderr default to on when the request
 * has any query, as Kubernetes' defaulting of PodExecOptions and PodAttachOptions does.
 */
export function kubeletStreamQuery(subresource: 'exec' | 'attach' | 'portforward', q: URLSearchParams): string {
  const params: [string, string][] = [];
  if (subresource === 'portforward') {
    const ports: number[] = [];
    for (const value of q.getAll('ports')) {
      for (const v of value.split(',')) {
        if (!/^\d+$/.test(v) || Number(v) > 65535) throw badRequest(`cannot convert to []int32: strconv.ParseUint: parsing ${JSON.stringify(v)}: ${/^\d+$/.test(v) ? 'value out of range' : 'invalid syntax'}`);
        ports.push(Number(v));
      }
    }
    if (ports.length > 0) params.push(['port', ports.join(',')]);
    return new URLSearchParams(params).toString();
  }
  const defaults = [...q.keys()].length > 0;
  const flag = (name: string, dflt: boolean): boolean => (defaults && dflt ? true : (queryBool(q, name) ?? false));
  if (subresource === 'exec') for (const c of q.getAll('command')) params.push(['command', c]);
  if (flag('stderr', true)) params.push(['error', '1']);
  if (flag('stdin', false)) params.push(['input', '1']);
  if (flag('stdout', true)) params.push(['output', '1']);
  if (flag('tty', false)) params.push(['tty', '1']);
  // Go sorts the keys; `command` values keep their order.
  params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return new URLSearchParams(params).toString();
}

/** Every container name, init containers first, then containers, then ephemeral ones. */
function containerNames(pod: KubeObject): string[] {
  const spec = record(pod.spec);
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)].map((c) => String(c.name ?? ''));
}

/** The container a request addresses: the one named, or the pod's only container. */
export function validateContainer(container: string, pod: KubeObject): string {
  const name = pod.metadata?.name ?? '';
  if (container === '') {
    const containers = list(record(pod.spec).containers);
    if (containers.length === 1) return String(containers[0]!.name ?? '');
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`);
  }
  if (!containerNames(pod).includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

// -----------------------------------------------------------------------------------------

/** The most of a node agent's error answer quoted in the Status (Kubernetes' limit). */
const MAX_ERROR_BODY = 50_000;

/** kube's generic Status for a node agent's non-2xx log answer (`( pods/log x)`: the verb is empty). */
export function logResponseError(code: number, body: string, podName: string): ApiError {
  const suffix = ` ( pods/log ${podName})`;
  const details = { name: podName, group: '', kind: 'pods/log' };
  switch (code) {
    case 400:
      return new ApiError(400, 'BadRequest', `the server rejected our request for an unknown reason${suffix}`, details);
    case 401:
      return new ApiError(401, 'Unauthorized', `the server has asked for the client to provide credentials${suffix}`, details);
    case 403:
      return new ApiError(403, 'Forbidden', `${body}${suffix}`, details);
    case 404:
      return new ApiError(404, 'NotFound', `the server could not find the requested resource${suffix}`, details);
    case 503:
      return new ApiError(503, 'ServiceUnavailable', `the server is currently unable to handle the request${suffix}`, details);
    case 504:
      return new ApiError(504, 'Timeout', `the server was unable to return a response in the time allotted, but may still be processing the request${suffix}`, details);
    default:
      if (code >= 500) return new ApiError(code, 'InternalError', `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding${suffix}`, details);
      return new ApiError(code, '', `the server responded with the status code ${code} but did not return more information${suffix}`, details);
  }
}

export interface PodConnectOptions {
  pods: RESTStore;
  nodes: NodeConnections;
  /** Which pod IPs `pods/x/proxy` may reach (default: global unicast only, as Kubernetes). */
  addressPolicy?: AddressPolicy;
  /** Nodes simulated in this process: no agent to dial, their pods' logs answered by the hook. */
  simulated?: SimulatedNodes;
}

/** Serves pods' `proxy`, `log`, `exec`, `attach` and `portforward`. */
export class PodConnecter {
  private readonly addressPolicy: AddressPolicy;

  constructor(private readonly opts: PodConnectOptions) {
    this.addressPolicy = opts.addressPolicy ?? defaultAddressPolicy;
  }

  private async pod(ctx: RequestContext, namespace: string, name: string): Promise<KubeObject> {
    const get = this.opts.pods.get;
    if (!get) throw new Error('pods: the store cannot get');
    return get.call(this.opts.pods, ctx, namespace, name, {});
  }

  async connect(ctx: RequestContext, namespace: string, id: string, subresource: string, r: ConnectRequest): Promise<void> {
    switch (subresource) {
      case 'proxy':
        return this.proxy(ctx, namespace, id, r);
      case 'log':
        return this.log(ctx, namespace, id, r);
      case 'exec':
      case 'attach':
      case 'portforward':
        return this.stream(ctx, namespace, id, subresource, r);
      default:
        throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    }
  }

  private async proxy(ctx: RequestContext, namespace: string, id: string, r: ConnectRequest): Promise<void> {
    const parts = splitSchemeNamePort(id);
    if (!parts) throw badRequest(`invalid pod request ${JSON.stringify(id)}`);
    const pod = await this.pod(ctx, namespace, parts.name);
    let port = parts.port;
    if (port === '') {
      // The first declared container port, as Kubernetes picks it.
      for (const c of list(record(pod.spec).containers)) {
        const first = list(c.ports)[0];
        if (first) {
          port = String(first.containerPort ?? '');
          break;
        }
      }
    }
    const status = record(pod.status);
    const podIP = String(list(status.podIPs)[0]?.ip ?? status.podIP ?? '');
    if (!this.addressPolicy(podIP)) throw badRequest(ADDRESS_NOT_ALLOWED);
    const path = joinPreserveTrailingSlash('', r.path);
    if (proxyRedirect(path, r)) return;
    const target = proxyTarget(() => targetURL(parts.scheme || 'http', podIP, port, escapePath(path), rawQuery(r), this.addressPolicy));
    await forward(r, ctx.signal, { mode: 'proxy', target, ...(parts.scheme === 'https' ? { tls: { insecureSkipVerify: true } } : {}) });
  }

  private async log(ctx: RequestContext, namespace: string, name: string, r: ConnectRequest): Promise<void> {
    const opts = podLogOptions(name, r.query);
    const pod = await this.pod(ctx, namespace, name);
    const container = validateContainer(opts.container, pod);
    const nodeName = String(record(pod.spec).nodeName ?? '');
    if (nodeName === '') {
      // No node, no log yet: Kubernetes answers an empty one.
      r.response.writeHead(200, { 'content-type': 'text/plain' });
      r.response.end();
      return;
    }
    if (this.opts.simulated?.isSimulated(nodeName)) return this.opts.simulated.serveLog({ ...opts, namespace, pod: name, container }, r.response, ctx.signal);
    const node = await this.opts.nodes.get(ctx, nodeName);
    const query = kubeletLogQuery(opts);
    const url = new URL(`${node.scheme}://${joinHostPort(node.hostname, node.port)}/containerLogs/${escapePath(`${namespace}/${name}/${container}`)}${query ? `?${query}` : ''}`);
    let answer;
    try {
      answer = await fetchUpstream({ url, tls: node.tls }, { signal: ctx.signal, responseHeaderTimeoutMs: r.responseHeaderTimeoutMs });
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      throw unknownError(500, `Get ${JSON.stringify(url.toString())}: ${dialErrorText(err, url)}`);
    }
    const code = answer.statusCode ?? 500;
    if (code < 200 || code > 299) {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of answer) {
        const b = chunk as Buffer;
        chunks.push(b);
        size += b.length;
        if (size >= MAX_ERROR_BODY) break;
      }
      answer.destroy();
      throw logResponseError(code, Buffer.concat(chunks).subarray(0, MAX_ERROR_BODY).toString('utf8'), name);
    }
    r.response.writeHead(200, { 'content-type': 'text/plain' });
    (r.response as { flushHeaders?: () => void }).flushHeaders?.();
    await new Promise<void>((resolve) => {
      const done = (): void => {
        answer.destroy();
        resolve();
      };
      answer.on('end', () => resolve());
      answer.on('error', () => {
        (r.response as { destroy?: () => void }).destroy?.();
        done();
      });
      r.response.on('close', done);
      answer.pipe(r.response);
    });
  }

  private async stream(ctx: RequestContext, namespace: string, name: string, subresource: 'exec' | 'attach' | 'portforward', r: ConnectRequest): Promise<void> {
    const query = kubeletStreamQuery(subresource, r.query);
    const pod = await this.pod(ctx, namespace, name);
    const container = subresource === 'portforward' ? '' : validateContainer(r.query.get('container') ?? '', pod);
    const nodeName = String(record(pod.spec).nodeName ?? '');
    if (nodeName === '') throw badRequest(`pod ${name} does not have a host assigned`);
    if (this.opts.simulated?.isSimulated(nodeName)) throw badRequest(`pod ${name} runs on the simulated node ${nodeName}, which has no containers to ${subresource === 'portforward' ? 'forward ports of' : subresource}`);
    const node = await this.opts.nodes.get(ctx, nodeName);
    const path = subresource === 'portforward' ? `/portForward/${namespace}/${name}` : `/${subresource}/${namespace}/${name}/${container}`;
    const target = new URL(`${node.scheme}://${joinHostPort(node.hostname, node.port)}${escapePath(path)}${query ? `?${query}` : ''}`);
    await forward(r, ctx.signal, { mode: 'stream', target, tls: node.tls });
  }
}
