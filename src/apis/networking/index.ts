// Ingresses, IngressClasses and NetworkPolicies.
import { requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { arr, at, child, meta, obj, objs, setDefault, str } from '../util.js';
import { oneOf, selectorString } from '../validation.js';

/** Up to three rule hosts, then `+ N more...` counting the rules beyond three; `*` when none is named. */
function ingressHosts(o: KubeObject): string {
  const rules = objs(at(o, 'spec.rules'));
  const max = 3;
  const list: string[] = [];
  let more = false;
  for (const r of rules) {
    if (list.length === max) more = true;
    const host = str(r.host) ?? '';
    if (!more && host !== '') list.push(host);
  }
  if (list.length === 0) return '*';
  return more ? `${list.join(',')} + ${rules.length - max} more...` : list.join(',');
}

/** Load balancer addresses (IP, else hostname), sorted and unique as kubectl lists them. */
function ingressAddress(o: KubeObject): string {
  const addresses = objs(at(o, 'status.loadBalancer.ingress'))
    .map((i) => str(i.ip) || str(i.hostname) || '')
    .filter((s) => s !== '');
  return [...new Set(addresses)].sort().join(',');
}

const ingresses: KindSpec = {
  tracksGeneration: true,
  prepareForCreate(o) {
    o.status = { loadBalancer: {} };
  },
  validate(o) {
    const errs: FieldError[] = [];
    objs(at(o, 'spec.rules')).forEach((r, i) =>
      objs(at(r, 'http.paths')).forEach((p, j) => {
        const path = `spec.rules[${i}].http.paths[${j}]`;
        errs.push(...oneOf(p.pathType, ['Exact', 'Prefix', 'ImplementationSpecific'], `${path}.pathType`, true));
        if (!obj(p.backend)) errs.push(requiredField(`${path}.backend`));
      }),
    );
    if (objs(at(o, 'spec.rules')).length === 0 && !obj(at(o, 'spec.defaultBackend'))) {
      errs.push({ type: 'FieldValueInvalid', field: 'spec', detail: 'Invalid value: {}: either `defaultBackend` or `rules` must be specified' });
    }
    return errs;
  },
  table: {
    columns: [
      nameColumn,
      column('Class', 'string', 'The name of the IngressClass resource that should be used for ingress.'),
      column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
      column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
      column('Ports', 'string', 'Ports of TLS configurations that open'),
      ageColumn,
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      str(at(o, 'spec.ingressClassName')) || '<none>',
      ingressHosts(o),
      ingressAddress(o),
      arr(at(o, 'spec.tls')).length > 0 ? '80, 443' : '80',
      since(meta(o).creationTimestamp, now),
    ],
  },
};

const ingressClasses: KindSpec = {
  tracksGeneration: true,
  table: {
    columns: [nameColumn, column('Controller', 'string', 'Controller that is responsible for handling this class'), column('Parameters', 'string', 'A reference to a resource with additional parameters'), ageColumn],
    cells(o, now) {
      const p = obj(at(o, 'spec.parameters'));
      let params = '<none>';
      if (p) {
        const kind = str(p.apiGroup) ? `${String(p.kind)}.${String(p.apiGroup)}` : String(p.kind);
        params = `${kind}/${String(p.name)}`;
      }
      return [meta(o).name ?? '', str(at(o, 'spec.controller')) ?? '', params, since(meta(o).creationTimestamp, now)];
    },
  },
};

const networkPolicies: KindSpec = {
  tracksGeneration: true,
  defaults(o) {
    const spec = child(o, 'spec');
    for (const rule of [...objs(spec.ingress), ...objs(spec.egress)]) for (const p of objs(rule.ports)) setDefault(p, 'protocol', 'TCP');
    if (arr(spec.policyTypes).length === 0) spec.policyTypes = arr(spec.egress).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  },
  table: {
    columns: [nameColumn, column('Pod-Selector', 'string', 'Selects the pods to which this NetworkPolicy object applies.'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', selectorString(at(o, 'spec.podSelector')) || '<none>', since(meta(o).creationTimestamp, now)],
  },
};

export const networkingKinds: Record<string, KindSpec> = {
  Ingress: ingresses,
  IngressClass: ingressClasses,
  NetworkPolicy: networkPolicies,
};
