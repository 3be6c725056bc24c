// EndpointSlices.
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { arr, meta, objs, setDefault, str } from '../util.js';
import { oneOf } from '../validation.js';

/** Three entries, then `+ N more...`; `<unset>` when empty. */
function listWithMore(list: string[]): string {
  const max = 3;
  if (list.length > max) return `${list.slice(0, max).join(',')} + ${list.length - max} more...`;
  return list.length > 0 ? list.join(',') : '<unset>';
}

const endpointSlices: KindSpec = {
  defaults(o) {
    for (const p of objs(o.ports)) {
      setDefault(p, 'protocol', 'TCP');
      setDefault(p, 'name', '');
    }
  },
  validate: (o) => oneOf(o.addressType, ['IPv4', 'IPv6', 'FQDN'], 'addressType', true),
  table: {
    columns: [
      nameColumn,
      column('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.'),
      column('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.'),
      column('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
      ageColumn,
    ],
    cells(o, now) {
      const ports = objs(o.ports).map((p) => (typeof p.port === 'number' ? String(p.port) : (str(p.name) ?? '*')));
      const addresses = objs(o.endpoints).flatMap((e) => arr(e.addresses).map(String));
      return [meta(o).name ?? '', str(o.addressType) ?? '', listWithMore(ports), listWithMore(addresses), since(meta(o).creationTimestamp, now)];
    },
  },
};

export const discoveryKinds: Record<string, KindSpec> = {
  EndpointSlice: endpointSlices,
};
