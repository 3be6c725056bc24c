// Every answer carries an Audit-Id, the id audit events and logs name the request by. A
// client's own `Audit-ID` header is kept, as kube-apiserver keeps it, so that a caller can
// follow its request through the audit log.
import { randomUUID } from 'node:crypto';
import type { Filter } from './chain.js';

export const withRequestId: Filter = (next) => (scope) => {
  const sent = scope.req.headers['audit-id'];
  const asked = Array.isArray(sent) ? sent[0] : sent;
  let id = asked !== undefined && asked !== '' ? asked : randomUUID();
  try {
    scope.res.setHeader('Audit-Id', id);
  } catch {
    // A value Node will not send back (it only could arrive through a lenient parser).
    id = randomUUID();
    scope.res.setHeader('Audit-Id', id);
  }
  scope.auditID = id;
  return next(scope);
};
