// The audit of one request: the policy decides its level, the event is built from the
// request, filled in as the request goes (impersonated user, request and response objects,
// annotations, status) and handed to the backend at each stage the policy does not omit.
import type { AuditAnnotations } from '../apimachinery/audit.js';
import type { Status } from '../apimachinery/errors.js';
import { isPlainObject, type UserInfo } from '../apimachinery/types.js';
import { inGoOrder } from '../codec/field-order.js';
import { stringifyJson } from '../codec/json.js';
import { EventSnapshot, type AuditBackend } from './backend.js';
import { nowMicros } from './event.js';
import type { AuditMetrics } from './metrics.js';
import { evaluatePolicy, type PolicyAttributes } from './policy.js';
import { levelAtLeast, type AuditEvent, type AuditLevel, type AuditStage, type EventUser, type Policy, type RequestAuditConfig, type ResponseStatus } from './types.js';

const MAX_USER_AGENT = 1024;

/** What the event takes from the HTTP request. */
export interface RequestFacts {
  auditID: string;
  requestURI: string;
  userAgent: string | undefined;
  sourceIPs: readonly string[];
  /** When the request arrived, in microseconds since the epoch. */
  receivedMicros: number;
}

export class Auditor {
  constructor(
    readonly policy: Policy,
    readonly backend: AuditBackend,
    readonly metrics: AuditMetrics,
    /** Whether a failure to record the first stage fails the request (`blocking-strict`). */
    readonly strict: boolean,
  ) {}

  /** The request's audit, or undefined when the policy's level for it is None. */
  begin(attrs: PolicyAttributes, facts: RequestFacts): RequestAudit | undefined {
    const config = evaluatePolicy(this.policy, attrs);
    this.metrics.level(config.level);
    if (config.level === 'None') return undefined;
    let userAgent = facts.userAgent ?? '';
    if (userAgent.length > MAX_USER_AGENT) userAgent = `${userAgent.slice(0, MAX_USER_AGENT)}...TRUNCATED`;
    const event: AuditEvent = {
      level: config.level,
      auditID: facts.auditID,
      stage: 'RequestReceived',
      requestURI: facts.requestURI,
      verb: attrs.verb,
      user: attrs.user ? eventUser(attrs.user) : { username: '' },
      sourceIPs: facts.sourceIPs,
      userAgent,
      requestReceivedTimestamp: facts.receivedMicros,
      stageTimestamp: facts.receivedMicros,
    };
    if (attrs.isResourceRequest) {
      event.objectRef = {
        namespace: attrs.namespace,
        name: attrs.name,
        resource: attrs.resource,
        subresource: attrs.subresource,
        apiGroup: attrs.apiGroup,
        apiVersion: attrs.apiVersion,
      };
    }
    return new RequestAudit(event, config, this);
  }

  shutdown(): Promise<void> {
    return this.backend.shutdown();
  }
}

/** The user as the event names it (authenticated users are never changed afterwards: no copies). */
function eventUser(u: UserInfo): EventUser {
  const out: EventUser = { username: u.username };
  if (u.uid) out.uid = u.uid;
  if (u.groups && u.groups.length > 0) out.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = u.extra;
  return out;
}

/** An object's JSON in Go's field order; without managed fields when the policy says so. */
function encodeObject(obj: unknown, omitManagedFields: boolean): string {
  return stringifyJson(inGoOrder(omitManagedFields ? withoutManagedFields(obj) : obj));
}

function withoutManagedFields(obj: unknown): unknown {
  if (!isPlainObject(obj)) return obj;
  let out: Record<string, unknown> = obj;
  const meta = obj.metadata;
  if (isPlainObject(meta) && Object.hasOwn(meta, 'managedFields')) {
    const { managedFields: _drop, ...rest } = meta;
    out = { ...obj, metadata: rest };
  }
  if (Array.isArray(obj.items)) out = { ...out, items: obj.items.map(withoutManagedFields) };
  if (obj.kind === 'Table' && Array.isArray(obj.rows)) {
    out = { ...out, rows: obj.rows.map((row: unknown) => (isPlainObject(row) && row.object !== undefined ? { ...row, object: withoutManagedFields(row.object) } : row)) };
  }
  return out;
}

export class RequestAudit implements AuditAnnotations {
  private readonly annotations = new Map<string, string>();
  private done = false;

  constructor(
    readonly event: AuditEvent,
    readonly config: RequestAuditConfig,
    private readonly auditor: Auditor,
  ) {}

  get level(): AuditLevel {
    return this.event.level;
  }

  add(key: string, value: string, level: AuditLevel = 'Metadata'): void {
    if (!levelAtLeast(this.event.level, level) || this.annotations.has(key)) return;
    this.annotations.set(key, value);
  }

  impersonated(user: UserInfo): void {
    this.event.impersonatedUser = eventUser(user);
  }

  /** The object a create, update or delete sent: names the object; its body from level Request. */
  requestObject(obj: unknown): void {
    const ref = (this.event.objectRef ??= {});
    const meta = isPlainObject(obj) && isPlainObject(obj.metadata) ? obj.metadata : undefined;
    if (meta) {
      if (!ref.namespace && typeof meta.namespace === 'string') ref.namespace = meta.namespace;
      if (!ref.name && typeof meta.name === 'string') ref.name = meta.name;
      if (!ref.uid && typeof meta.uid === 'string') ref.uid = meta.uid;
      if (!ref.resourceVersion && typeof meta.resourceVersion === 'string') ref.resourceVersion = meta.resourceVersion;
    }
    if (levelAtLeast(this.event.level, 'Request')) this.event.requestObject = encodeObject(obj, this.config.omitManagedFields);
  }

  /** A patch body, from level Request: JSON patches as sent; other documents as decoded. */
  requestPatch(patch: unknown): void {
    if (levelAtLeast(this.event.level, 'Request')) this.event.requestObject = typeof patch === 'string' ? patch : stringifyJson(patch);
  }

  /** The answer: a Status becomes the responseStatus; the body is kept from level RequestResponse. */
  responseObject(obj: unknown): void {
    if (isPlainObject(obj) && obj.kind === 'Status') this.status(obj as unknown as Status);
    if (levelAtLeast(this.event.level, 'RequestResponse')) this.event.responseObject = encodeObject(obj, this.config.omitManagedFields);
  }

  status(st: Partial<Pick<Status, 'status' | 'message' | 'reason' | 'details'>> & { code: number }): void {
    const rs: ResponseStatus = { code: st.code };
    if (st.status) rs.status = st.status;
    if (st.message) rs.message = st.message;
    if (st.reason) rs.reason = st.reason;
    if (st.details) rs.details = st.details;
    this.event.responseStatus = rs;
  }

  /** The code the answer started with, when no Status said more. */
  code(code: number): void {
    if (this.event.responseStatus) this.event.responseStatus = { ...this.event.responseStatus, code };
    else this.event.responseStatus = { code };
  }

  get hasStatus(): boolean {
    return this.event.responseStatus !== undefined;
  }

  /** Hands the event at `stage` to the backend; false when the backend failed to record it. */
  process(stage: AuditStage): boolean | Promise<boolean> {
    if (this.done) return true;
    if (stage === 'ResponseComplete' || stage === 'Panic') this.done = true;
    if (this.config.omitStages.includes(stage)) return true;
    const ev = this.event;
    ev.stage = stage;
    ev.stageTimestamp = stage === 'RequestReceived' ? ev.requestReceivedTimestamp : Math.max(nowMicros(), ev.requestReceivedTimestamp);
    this.auditor.metrics.event();
    const backend = this.auditor.backend;
    if (backend.consumesAtOnce) {
      // Written before this returns: the live event is read as it is now.
      ev.annotations = this.annotations.size > 0 ? this.annotations : undefined;
      return backend.processEvents([new EventSnapshot(ev)]);
    }
    // Kept for later (a batch): the event as it is at this stage.
    const snapshot: AuditEvent = { ...ev };
    if (ev.objectRef) snapshot.objectRef = { ...ev.objectRef };
    if (this.annotations.size > 0) snapshot.annotations = new Map(this.annotations);
    return backend.processEvents([new EventSnapshot(snapshot)]);
  }
}
