// The smaller core kinds: Endpoints, LimitRange, ResourceQuota, ServiceAccount.
import { invalidField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, createdAtColumn, nameColumn, since } from '../table.js';
import { arr, at, meta, obj, objs, str } from '../util.js';
import { isPortNumber } from './podspec.js';
import { validateIP, validateNonSpecialIP } from './ip-validation.js';
import { productName } from '../../naming/index.js';
import { getOwn, setOwn } from '../../apimachinery/own.js';
import { rfc3339 } from '../../apimachinery/time.js';

function hostPort(ip: string, port: unknown): string {
  return ip.includes(':') ? `[${ip}]:${String(port)}` : `${ip}:${String(port)}`;
}

/** Up to three `ip:port` pairs, then `+ N more...`, as kubectl lists endpoints. */
function formatEndpoints(o: KubeObject): string {
  const subsets = objs(o.subsets);
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let count = 0;
  let more = false;
  for (const ss of subsets) {
    const addresses = objs(ss.addresses);
    const ports = objs(ss.ports);
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(str(a.ip) ?? '');
      }
      continue;
    }
    for (const p of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(hostPort(str(a.ip) ?? '', p.port));
      }
    }
  }
  const joined = list.join(',');
  if (more) return `${joined} + ${count - max} more...`;
  return joined === '' ? '<none>' : joined;
}

function validateEndpoints(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  // The API server's own Endpoints name the address it serves on, loopback for a local
  // server; the proxies and the aggregator refuse special addresses when they dial, so only
  // this object may hold one.
  const own = meta(o).namespace === 'default' && meta(o).name === productName();
  objs(o.subsets).forEach((ss, i) => {
    for (const kind of ['addresses', 'notReadyAddresses']) {
      objs(ss[kind]).forEach((a, j) => {
        const path = `subsets[${i}].${kind}[${j}].ip`;
        if (!str(a.ip)) errs.push(requiredField(path));
        else errs.push(...validateIP(a.ip, path), ...(own ? [] : validateNonSpecialIP(a.ip, path)));
      });
    }
    objs(ss.ports).forEach((p, j) => {
      if (!isPortNumber(p.port)) errs.push(invalidField(`subsets[${i}].ports[${j}].port`, p.port ?? 0, 'must be between 1 and 65535, inclusive'));
      if (p.protocol === undefined) p.protocol = 'TCP';
    });
  });
  return errs;
}

export const endpoints: KindSpec = {
  allowCreateOnUpdate: true,
  defaults(o) {
    for (const ss of objs(o.subsets)) for (const p of objs(ss.ports)) if (p.protocol === undefined) p.protocol = 'TCP';
  },
  validate: validateEndpoints,
  table: {
    columns: [nameColumn, column('Endpoints', 'string', 'Endpoints of the service'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', formatEndpoints(o), since(meta(o).creationTimestamp, now)],
  },
};

/** Container limits: default limit from max, default request from the default limit, then from min. */
function defaultLimitRangeItem(item: Record<string, unknown>): void {
  if (item.type !== 'Container') return;
  const fill = (target: Record<string, unknown>, source: unknown): void => {
    for (const [k, v] of Object.entries(obj(source) ?? {})) if (getOwn(target, k) === undefined) setOwn(target, k, v);
  };
  const limits: Record<string, unknown> = { ...(obj(item.default) ?? {}) };
  fill(limits, item.max);
  const requests: Record<string, unknown> = { ...(obj(item.defaultRequest) ?? {}) };
  fill(requests, limits);
  fill(requests, item.min);
  if (Object.keys(limits).length > 0) item.default = limits;
  if (Object.keys(requests).length > 0) item.defaultRequest = requests;
}

export const limitRanges: KindSpec = {
  allowCreateOnUpdate: true,
  defaults(o) {
    for (const item of objs(at(o, 'spec.limits'))) defaultLimitRangeItem(item);
  },
  validate(o) {
    const errs: FieldError[] = [];
    objs(at(o, 'spec.limits')).forEach((l, i) => {
      if (!str(l.type)) errs.push(requiredField(`spec.limits[${i}].type`));
    });
    return errs;
  },
  table: {
    columns: [nameColumn, createdAtColumn],
    cells: (o) => {
      const t = Date.parse(String(meta(o).creationTimestamp ?? ''));
      return [meta(o).name ?? '', Number.isNaN(t) ? null : rfc3339(new Date(t))];
    },
  },
};

function quotaList(o: KubeObject, prefix: 'requests' | 'limits' | null): string {
  const hard = obj(at(o, 'status.hard')) ?? {};
  const used = obj(at(o, 'status.used')) ?? {};
  const parts: string[] = [];
  for (const key of Object.keys(hard).sort()) {
    const isLimit = key.startsWith('limits.');
    if (prefix === 'limits' ? !isLimit : isLimit) continue;
    parts.push(`${key}: ${String(used[key] ?? '0')}/${String(hard[key])}`);
  }
  return parts.join(', ');
}

export const resourceQuotas: KindSpec = {
  allowUnconditionalUpdate: false,
  table: {
    columns: [
      nameColumn,
      ageColumn,
      column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
      column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    ],
    cells: (o, now) => [meta(o).name ?? '', since(meta(o).creationTimestamp, now), quotaList(o, 'requests'), quotaList(o, 'limits')],
  },
};

/** Secret references of a service account keep only their names. */
function cleanSecretReferences(o: KubeObject): void {
  if (!Array.isArray(o.secrets)) return;
  o.secrets = objs(o.secrets).map((s) => (s.name === undefined ? {} : { name: s.name }));
}

export const serviceAccounts: KindSpec = {
  // Kubernetes' store for this kind answers a completed delete with the object.
  returnDeletedObject: true,
  subresources: { token: { serving: { by: 'handler', handler: 'ServiceAccountToken' } } },
  prepareForCreate: cleanSecretReferences,
  prepareForUpdate: cleanSecretReferences,
  table: {
    columns: [nameColumn, column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'), ageColumn],
    cells: (o, now) => [meta(o).name ?? '', arr(o.secrets).length, since(meta(o).creationTimestamp, now)],
  },
};
