// The verbs a served resource implements (Kubernetes' rest.Storage family, as one interface
// with optional verbs), their options and results, and the table of served resources.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { KubeList, KubeObject } from '../apimachinery/types.js';
import type { RequestContext } from './context.js';
import type { ResourceDefinition } from './definition.js';
import type { StoreList } from './list.js';
import type { EventEncodingMemo, StoreWatch } from './watch.js';
import type { CreateOptions, DeleteOptions, GetOptions, ListOptions, UpdateOptions } from './options.js';

/**
 * Computes the new object from the current one (undefined when it does not exist); for an
 * apply, `applied` is the current object with the configuration merged in.
 */
export type UpdatedObjectInfo = (current: KubeObject | undefined, applied?: KubeObject) => KubeObject | Promise<KubeObject>;

export interface UpdateResult {
  object: KubeObject;
  /** True when the update created the object (201). */
  created: boolean;
  /** The store's revision after the update removed the object (its last finalizer went), when asked for (`reportRemoval`). */
  removedAt?: number;
}

export interface DeleteResult {
  /** The deleted object, or the object as it now stands while finalizers remain. */
  object: KubeObject;
  /** False while the object waits for finalizers (202 when graceful). */
  deleted: boolean;
  /**
   * The store's revision once the object was removed, when asked for (`reportRemoval`): the
   * answer carries the object's last resourceVersion, as Kubernetes answers a delete, and the
   * removal has a revision of its own.
   */
  removedAt?: number;
}

/** The request a connect subresource (`proxy`, `exec`, `attach`, `portforward`, `log`) serves, as received. */
export interface ConnectRequest {
  /** The HTTP method, upper case. */
  method: string;
  /**
   * The path after the subresource, percent-decoded, with a leading `/` when not empty and the
   * request's trailing `/` kept (`pods/x/proxy/a/b/` gives `/a/b/`; `pods/x/proxy` gives '').
   */
  path: string;
  query: URLSearchParams;
  /** The path the client sent (undecoded), for the upstream's `X-Forwarded-Uri`. */
  requestPath: string;
  /** The raw request: its body is read only by a connecter that forwards it. */
  request: NodeJS.ReadableStream & { method?: string; url?: string; headers: IncomingHttpHeaders };
  /** The raw response; nothing has been written to it yet. */
  response: NodeJS.WritableStream & {
    headersSent: boolean;
    writeHead(status: number, headers?: OutgoingHttpHeaders): unknown;
    on(event: string, listener: (...args: unknown[]) => void): unknown;
  };
  /** Set for an HTTP/1.1 upgrade (SPDY, WebSocket): the client's socket and the bytes read past the headers. */
  upgrade?: { socket: Duplex; head: Buffer };
  /** How long to wait for an upstream's answer headers (the server's request timeout). */
  responseHeaderTimeoutMs: number;
}

/**
 * One served resource: the verbs on its collection and objects. Generic stored kinds
 * implement every verb; virtual resources implement only theirs. Its subresources are
 * stores of their own (`SubresourceStore`), which the resource table resolves.
 */
/**
 * `get`'s answer before it is built. Read from the watch cache it is the same for every
 * request of the served version until the object changes: `source` (one object per stored
 * revision) says so, and its encodings are kept in `encodings`, so that a GET of an
 * unchanged object copies bytes instead of decoding and encoding it again.
 */
export interface GetAnswer {
  build(): KubeObject;
  readonly shared?: { readonly source: object; readonly encodings: EventEncodingMemo };
}

export interface RESTStore {
  readonly definition: ResourceDefinition;
  get?(ctx: RequestContext, namespace: string, name: string, opts: GetOptions): Promise<KubeObject>;
  /** `get`, answered as a `GetAnswer`; a store without it is read with `get`. */
  getAnswer?(ctx: RequestContext, namespace: string, name: string, opts: GetOptions): Promise<GetAnswer>;
  list?(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<StoreList>;
  /** Ends when `ctx.signal` aborts or `timeoutSeconds` passes. Throws ApiError before the first event. */
  watch?(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<StoreWatch>;
  create?(ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions): Promise<KubeObject>;
  update?(ctx: RequestContext, namespace: string, name: string, objInfo: UpdatedObjectInfo, opts: UpdateOptions): Promise<UpdateResult>;
  delete?(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult>;
  deleteCollection?(ctx: RequestContext, namespace: string, opts: DeleteOptions, listOpts: ListOptions): Promise<KubeList>;
}
