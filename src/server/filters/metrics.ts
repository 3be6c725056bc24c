// Counts each request and its latency once it is answered, labelled with its RequestInfo.
// It wraps panic recovery so that it sees the code of the Status an error became.
import type { ResourceTable } from '../../rest/index.js';
import type { ApiServerMetrics } from '../metrics.js';
import type { RequestInfo } from '../request-info.js';
import { andFinally, type Filter } from './chain.js';

export function withMetrics(metrics: ApiServerMetrics, table: ResourceTable): Filter {
  return (next) => (scope) =>
    andFinally(
      () => next(scope),
      () => {
        const seconds = Number(process.hrtime.bigint() - scope.started) / 1e9;
        metrics.observe(servedInfo(table, scope.info), scope.req.method ?? 'GET', scope.res.statusCode, seconds, scope.query.getAll('dryRun').includes('All'));
      },
    );
}

/**
 * The request as metrics may label it: a group, version, resource or subresource the server
 * does not serve is blanked, so that made-up paths cannot add series.
 */
function servedInfo(table: ResourceTable, info: RequestInfo | undefined): RequestInfo | undefined {
  if (!info?.isResourceRequest) return info;
  const gv = { group: info.apiGroup, version: info.apiVersion };
  const store = table.lookup(gv, info.resource);
  if (!store) return { ...info, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '' };
  if (info.subresource && !table.lookupSubresource(gv, info.resource, info.subresource)) return { ...info, subresource: '' };
  return info;
}
