// Every answer carries an Audit-Id, the id audit events and logs name the request by.
import { randomUUID } from 'node:crypto';
import type { Filter } from './chain.js';

export const withRequestId: Filter = (next) => (scope) => {
  scope.res.setHeader('Audit-Id', randomUUID());
  return next(scope);
};
