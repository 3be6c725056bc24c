// APIServices: path-segment names and the columns kubectl shows.
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { at, meta, obj, objs, str } from '../util.js';
import { strictPathSegmentName } from '../../apimachinery/names.js';

const apiServices: KindSpec = {
  allowUnconditionalUpdate: false,
  validateName: strictPathSegmentName,
  table: {
    columns: [
      nameColumn,
      column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
      column('Available', 'string', 'Whether this service is available.'),
      ageColumn,
    ],
    cells(o, now) {
      const svc = obj(at(o, 'spec.service'));
      const service = svc ? `${str(svc.namespace) ?? ''}/${str(svc.name) ?? ''}` : 'Local';
      const cond = objs(at(o, 'status.conditions')).find((c) => c.type === 'Available');
      let available = 'Unknown';
      if (cond) available = cond.status === 'True' ? 'True' : `${String(cond.status)} (${str(cond.reason) ?? ''})`;
      return [meta(o).name ?? '', service, available, since(meta(o).creationTimestamp, now)];
    },
  },
};

export const apiregistrationKinds: Record<string, KindSpec> = {
  APIService: apiServices,
};
