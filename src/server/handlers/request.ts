// What the HTTP handlers of resource requests are given: the server's shared parts (deps)
// and one request (ResourceRequest), and what a write of that request addresses.
import type { FeatureGate } from '../../apimachinery/features.js';
import type { UserInfo } from '../../apimachinery/types.js';
import type { AdmissionChain } from '../../admission/types.js';
import type { RequestAudit } from '../../audit/index.js';
import type { SerializerSet } from '../../codec/serializer.js';
import type { RESTStore, RequestContext, ResourceTable, SubresourceStore, WriteRecorder } from '../../rest/index.js';
import type { ServerRequest, ServerResponse } from '../http.js';
import type { RequestInfo } from '../request-info.js';
import type { WriteTarget } from './write.js';

export interface HandlerDeps {
  table: ResourceTable;
  serializers: SerializerSet;
  admission?: AdmissionChain;
  maxBodyBytes: number;
  /** Watches without timeoutSeconds last between this and twice this. */
  minRequestTimeoutSeconds: number;
  /** Aborts every watch when the server shuts down. */
  shutdownSignal: AbortSignal;
  /** Authorizes a further verb on the same resource (an apply that creates also needs `create`). */
  authorize?: (info: RequestInfo, user: UserInfo) => Promise<void>;
  now?: () => Date;
  /** The server's request timeout: how long a connect subresource waits for its target's answer headers. */
  requestTimeoutMs?: number;
  /** The server's feature gates; the 1.27 defaults when absent. */
  features?: FeatureGate;
  /** Where successful writes go for the object history; none is kept without it. */
  history?: WriteRecorder;
}

export interface ResourceRequest {
  req: ServerRequest;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  user: UserInfo;
  /** Aborted when the client goes away or the request's deadline passes; made on first use. */
  readonly signal: AbortSignal;
  /** Whether `signal` aborted, read without making it. */
  readonly aborted: boolean;
  warnings: string[];
  pretty: boolean;
  /** A watch calls it once it has sent the events that were ready when it started (priority and fairness frees its seat). */
  onWatchInitialized?: () => void;
  /** The request's audit event, when the policy audits it. */
  audit?: RequestAudit;
}

/** A routed request: the Store it goes to, with the namespace the Store is called with. */
export interface Routed {
  r: ResourceRequest;
  ctx: RequestContext;
  store: RESTStore;
  /** The subresource's store, for a request of a subresource. */
  subresource?: SubresourceStore;
  namespace: string;
}

/** The write a routed request makes, on the object `name`. */
export function writeTargetOf(routed: Routed, name: string, dryRun: boolean): WriteTarget {
  const { r, store, subresource, namespace } = routed;
  return {
    store,
    namespace,
    name,
    subresource,
    user: r.user,
    warnings: r.warnings,
    dryRun,
    dryRunValues: r.query.getAll('dryRun').filter((v) => v),
    fieldManager: r.query.get('fieldManager') ?? undefined,
    audit: r.audit,
  };
}
