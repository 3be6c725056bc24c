// Audit: the policy's level for the request, and the event handed to the audit backends at
// each stage: RequestReceived before anything else runs, ResponseStarted when a long-running
// request (watch, logs, exec, proxy) starts answering, ResponseComplete once the answer is
// decided, Panic (instead) when the request failed with an internal error. Requests that
// fail authentication are audited by `withFailedAuthenticationAudit` (outside
// authentication), with one ResponseStarted event, as kube-apiserver audits them.
import { ApiError, internalError } from '../../apimachinery/errors.js';
import type { UserInfo } from '../../apimachinery/types.js';
import { sourceIPs, type Auditor, type PolicyAttributes, type RequestAudit } from '../../audit/index.js';
import { nowMicros } from '../../audit/event.js';
import { headerValue, remoteAddress } from '../http.js';
import { isLongRunning, requestAttributes, type RequestInfo } from '../request-info.js';
import { andCatch, required, type Filter, type Handler, type RequestScope } from './chain.js';


function begin(auditor: Auditor, scope: RequestScope, info: RequestInfo, user: UserInfo | undefined): RequestAudit | undefined {
  const { req } = scope;
  const elapsedMicros = Number(process.hrtime.bigint() - scope.started) / 1000;
  const attrs: PolicyAttributes = { user, ...requestAttributes(info) };
  return auditor.begin(attrs, {
      auditID: scope.auditID ?? String(scope.res.getHeader('Audit-Id') ?? ''),
      requestURI: req.url ?? '/',
      userAgent: headerValue(req, 'user-agent'),
      sourceIPs: sourceIPs(headerValue(req, 'x-forwarded-for'), headerValue(req, 'x-real-ip'), remoteAddress(req)),
    receivedMicros: Math.floor(nowMicros() - elapsedMicros),
  });
}

/** A backend in `blocking-strict` mode that cannot record the first stage fails the request. */
async function recordOrReject(auditor: Auditor, recorded: boolean | Promise<boolean>): Promise<void> {
  if (!(await recorded) && auditor.strict) {
    auditor.metrics.rejectedRequest();
    throw internalError(new Error('failed to store audit event'));
  }
}

/** Waits only for a backend that makes requests wait (a webhook in a blocking mode). */
async function settle(recorded: boolean | Promise<boolean>): Promise<void> {
  if (typeof recorded !== 'boolean') await recorded;
}

export function withAudit(auditor: Auditor | undefined): Filter {
  if (!auditor) return (next) => next;
  return (next) => (scope) => {
    const info = required(scope.info, 'RequestInfo');
    const audit = begin(auditor, scope, info, scope.authenticatedUser);
    if (!audit) return next(scope);
    return audited(auditor, audit, info, next, scope);
  };
}

/** The request's audit event through its stages, around the rest of the chain. */
async function audited(auditor: Auditor, audit: RequestAudit, info: RequestInfo, next: Handler, scope: RequestScope): Promise<void> {
  scope.audit = audit;
  const received = audit.process('RequestReceived');
  if (received !== true) await recordOrReject(auditor, received);
  const noteImpersonation = (): void => {
    if (scope.user && scope.authenticatedUser && scope.user !== scope.authenticatedUser) audit.impersonated(scope.user);
  };
  if (isLongRunning(info)) startedHook(scope, () => {
    noteImpersonation();
    if (!audit.hasStatus) audit.code(scope.res.statusCode);
    void audit.process('ResponseStarted');
  });
  try {
    await next(scope);
  } catch (err) {
    noteImpersonation();
    if (err instanceof ApiError) {
      audit.status(err.status);
      await settle(audit.process('ResponseComplete'));
    } else {
      audit.status({ code: 500, status: 'Failure', reason: 'InternalError', message: `APIServer panic'd: ${err instanceof Error ? err.message : String(err)}` });
      await settle(audit.process('Panic'));
    }
    throw err;
  }
  noteImpersonation();
  // The code sent wins over a Status body's (a delete's Success Status carries none).
  audit.code(scope.res.statusCode);
  await settle(audit.process('ResponseComplete'));
}

/** Calls `onStart` once, when the answer's headers or first bytes go out. */
function startedHook(scope: RequestScope, onStart: () => void): void {
  const res = scope.res;
  let fired = false;
  const fire = (): void => {
    if (fired) return;
    fired = true;
    onStart();
  };
  const flush = res.flushHeaders?.bind(res);
  if (flush) {
    res.flushHeaders = () => {
      fire();
      flush();
    };
  }
  const write = res.write.bind(res);
  res.write = (chunk, cb) => {
    fire();
    return write(chunk, cb);
  };
}

/** Which credentials a request that failed authentication tried, worded as kube-apiserver words it. */
function authMethods(scope: RequestScope): string {
  const methods: string[] = [];
  const auth = (headerValue(scope.req, 'authorization') ?? '').trim();
  if (/^basic\s/i.test(auth)) methods.push('basic');
  const parts = auth.split(' ');
  if (parts.length > 1 && parts[0]!.toLowerCase() === 'bearer') methods.push('bearer');
  if ((scope.query.get('access_token') ?? '').trim() !== '') methods.push('access_token');
  const socket = scope.req.socket as { getPeerCertificate?: () => { raw?: unknown } } | undefined;
  if (socket?.getPeerCertificate?.()?.raw) methods.push('x509');
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

/** Audits requests that fail authentication (policy rules see no user). */
export function withFailedAuthenticationAudit(auditor: Auditor | undefined): Filter {
  if (!auditor) return (next) => next;
  return (next) => (scope) =>
    andCatch(
      () => next(scope),
      (err) => {
        if (err instanceof ApiError && err.code === 401 && scope.authenticatedUser === undefined && scope.info) {
          const audit = begin(auditor, scope, scope.info, undefined);
          if (audit) {
            audit.status({ code: 401, message: authMethods(scope) });
            void audit.process('ResponseStarted');
          }
        }
        throw err;
      },
    );
}
