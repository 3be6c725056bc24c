// Max in flight: at most so many read-only and so many mutating requests at once, 429
// beyond. Long-running requests (watches) and superusers are not limited.
import { tooManyRequests } from '../../apimachinery/errors.js';
import type { ApiServerMetrics } from '../metrics.js';
import { isLongRunning } from '../request-info.js';
import { andFinally, required, type Filter } from './chain.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SUPERUSER_GROUP = 'system:masters';

export interface InFlightLimits {
  readOnly: number;
  mutating: number;
}

export function withMaxInFlightLimit(limits: InFlightLimits, metrics: ApiServerMetrics): Filter {
  const inflight = { readOnly: 0, mutating: 0 };
  return (next) => (scope) => {
    const info = required(scope.info, 'RequestInfo');
    const user = required(scope.user, 'the user');
    const authenticated = required(scope.authenticatedUser, 'the user');
    const longRunning = isLongRunning(info);
    if (longRunning || user.groups.includes(SUPERUSER_GROUP) || authenticated.groups.includes(SUPERUSER_GROUP)) return next(scope);
    const kind = MUTATING.has(scope.method) ? 'mutating' : 'readOnly';
    if (inflight[kind] >= limits[kind]) throw tooManyRequests('Too many requests, please try again later.', 1);
    metrics.setInflight(kind, ++inflight[kind]);
    return andFinally(
      () => next(scope),
      () => metrics.setInflight(kind, --inflight[kind]),
    );
  };
}
