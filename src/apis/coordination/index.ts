// Leases: written with create-on-update by the components that hold them.
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { at, meta, str } from '../util.js';

const leases: KindSpec = {
  allowCreateOnUpdate: true,
  table: {
    columns: [nameColumn, column('Holder', 'string', 'The holder of the lease'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', str(at(o, 'spec.holderIdentity')) ?? '', since(meta(o).creationTimestamp, now)],
  },
};

export const coordinationKinds: Record<string, KindSpec> = {
  Lease: leases,
};
