// EndpointSlices.
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { arr, meta, objs, setDefault, str } from '../util.js';
import { oneOf } from '../validation.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { invalidField, type FieldError } from '../../apimachinery/errors.js';
import { isDNS1123Subdomain } from '../../apimachinery/labels.js';
import { validateIPOfFamily } from '../core/ip-validation.js';

/** Each endpoint's addresses match the slice's address type (1.27 checks the format only). */
function validateAddresses(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const type = o.addressType;
  objs(o.endpoints).forEach((e, i) => {
    arr(e.addresses).forEach((a, j) => {
      const path = `endpoints[${i}].addresses[${j}]`;
      if (type === 'IPv4' || type === 'IPv6') errs.push(...validateIPOfFamily(a, type, path));
      else if (type === 'FQDN') {
        if (typeof a !== 'string' || !a.includes('.')) errs.push(invalidField(path, a ?? '', 'should be a domain with at least two segments separated by dots'));
        else for (const msg of isDNS1123Subdomain(a)) errs.push(invalidField(path, a, msg));
      }
    });
  });
  return errs;
}

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
  validate: (o) => [...oneOf(o.addressType, ['IPv4', 'IPv6', 'FQDN'], 'addressType', true), ...validateAddresses(o)],
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
