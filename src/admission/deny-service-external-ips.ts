// DenyServiceExternalIPs: no new use of `spec.externalIPs` (CVE-2020-8554). A service may keep
// or drop addresses it already has, never add one.
import type { KubeObject } from '../apimachinery/types.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { admissionForbidden, isResource, specOf } from './util.js';

function externalIPs(svc: KubeObject | undefined): unknown[] {
  const v = specOf(svc)?.externalIPs;
  return Array.isArray(v) ? v : [];
}

/** Whether every external IP of `next` was already on `prev` (none on `next` always is). Pure. */
export function externalIPsAreSubset(next: KubeObject | undefined, prev: KubeObject | undefined): boolean {
  const wanted = externalIPs(next);
  if (wanted.length === 0) return true;
  if (!prev) return false;
  const had = new Set(externalIPs(prev));
  return wanted.every((ip) => had.has(ip));
}

export const denyServiceExternalIPs: AdmissionPlugin = {
  name: 'DenyServiceExternalIPs',
  handles: (operation: AdmissionOperation) => operation === 'CREATE' || operation === 'UPDATE',
  async validate(attrs: AdmissionAttributes) {
    if (!isResource(attrs, '', 'services')) return;
    if (externalIPsAreSubset(attrs.object, attrs.oldObject)) return;
    throw admissionForbidden(attrs, 'use of external IPs is denied by admission control');
  },
};
