// Cluster IPs, IP families and node ports of Services: what a create or an update
// allocates and what it frees, as a transaction the caller commits when the write
// succeeded (freeing what the old object held) or reverts when it failed (freeing what
// was taken for it). Kubernetes' service REST allocation rules.
import { internalError, invalid, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { AllocationError, ServiceAllocations, type AllocationOwner } from './allocations.js';
import {
  CLUSTER_IP_NONE,
  allocatesNodePorts,
  goStringSlice,
  invalidRendered,
  isHeadless,
  needsClusterIP,
  needsHealthCheckNodePort,
  needsNodePort,
  nodePortOf,
  portsOf,
  sameClusterIPs,
  sameIPFamilies,
  specOf,
  strings,
  normalizeClusterIPsForUpdate,
  validateClusterIPFields,
  type ServiceSpec,
} from '../../apis/core/service-fields.js';
import { familyOf, portRangeString, type IPFamily, type PortRange, type ServiceIPRange } from '../../apis/core/service-ip.js';

export interface ServiceNetwork {
  /** The service CIDRs, primary first. */
  ipRanges: ServiceIPRange[];
  nodePorts: PortRange;
}

type Undo = () => Promise<void>;

/** What one write took and what it would free. */
export class AllocationTransaction {
  private readonly taken: Undo[] = [];
  private readonly freed: Undo[] = [];

  onRevert(undo: Undo): void {
    this.taken.push(undo);
  }

  onCommit(release: Undo): void {
    this.freed.push(release);
  }

  /** The write happened: free what the old object no longer holds. */
  async commit(): Promise<void> {
    for (const f of this.freed.splice(0)) await f();
    this.taken.length = 0;
  }

  /** The write did not happen: give back what was taken for it. */
  async revert(): Promise<void> {
    for (const f of this.taken.splice(0).reverse()) await f();
    this.freed.length = 0;
  }
}

const SERVICE = { group: '', kind: 'Service' };

function otherFamily(f: string): IPFamily {
  return f === 'IPv4' ? 'IPv6' : 'IPv4';
}

export class ServiceAllocator {
  constructor(
    private readonly network: ServiceNetwork,
    private readonly allocations: ServiceAllocations,
  ) {}

  private rangeFor(family: string): ServiceIPRange | undefined {
    return this.network.ipRanges.find((r) => r.family === family);
  }

  private get primaryFamily(): IPFamily {
    return (this.network.ipRanges[0] as ServiceIPRange).family;
  }

  private owner(svc: KubeObject): AllocationOwner {
    return { namespace: svc.metadata?.namespace ?? '', name: svc.metadata?.name ?? svc.metadata?.generateName ?? '' };
  }

  /** Fills and allocates the network fields of a new service (dry run: checks, takes nothing). */
  async allocateCreate(svc: KubeObject, dryRun: boolean): Promise<AllocationTransaction> {
    const spec = specOf(svc);
    const name = svc.metadata?.name ?? '';
    // A client that sets only the singular field means the list of one.
    if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && strings(spec.clusterIPs).length === 0) spec.clusterIPs = [spec.clusterIP];
    this.initIPFamilyFields(spec, undefined, name);
    const txn = new AllocationTransaction();
    try {
      await this.allocateClusterIPs(svc, spec, txn, dryRun);
      if (needsNodePort(spec)) await this.initNodePorts(svc, spec, txn, dryRun);
      if (needsHealthCheckNodePort(spec)) await this.allocateHealthCheckNodePort(svc, spec, txn, dryRun);
    } catch (e) {
      await txn.revert();
      throw e;
    }
    return txn;
  }

  /** Keeps allocated values an update left out, then allocates and frees for the change. */
  async allocateUpdate(svc: KubeObject, old: KubeObject, dryRun: boolean): Promise<AllocationTransaction> {
    const spec = specOf(svc);
    const oldSpec = specOf(structuredClone(old));
    const name = svc.metadata?.name ?? '';
    patchAllocatedValues(spec, oldSpec);
    normalizeClusterIPsForUpdate(spec, oldSpec);
    this.initIPFamilyFields(spec, oldSpec, name);
    const txn = new AllocationTransaction();
    try {
      await this.updateClusterIPs(svc, spec, oldSpec, txn, dryRun);
      await this.updateNodePorts(svc, spec, oldSpec, txn, dryRun);
    } catch (e) {
      await txn.revert();
      throw e;
    }
    return txn;
  }

  /** Frees everything a deleted service held. */
  async releaseAll(svc: KubeObject): Promise<void> {
    const spec = specOf(structuredClone(svc));
    if (needsClusterIP(spec) && !isHeadless(spec)) {
      for (const ip of strings(spec.clusterIPs)) {
        const range = this.rangeFor(familyOf(ip) ?? '');
        if (range) await this.allocations.releaseIP(range, ip);
      }
    }
    for (const port of collectNodePorts(spec)) await this.allocations.releasePort(this.network.nodePorts, port);
  }

  // -------------------------------------------------------------------------------------
  // IP families

  private initIPFamilyFields(spec: ServiceSpec, old: ServiceSpec | undefined, name: string): void {
    if (spec.type === 'ExternalName') return;
    if (old && matchesPreferDualStack(spec, old)) return;
    const ips = strings(spec.clusterIPs);
    if (spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null) {
      if (old && old.ipFamilyPolicy) spec.ipFamilyPolicy = old.ipFamilyPolicy;
      else if (spec.clusterIP === CLUSTER_IP_NONE && !hasSelector(spec)) spec.ipFamilyPolicy = 'RequireDualStack';
      else spec.ipFamilyPolicy = 'SingleStack';
    }
    const pre = validateClusterIPFields(spec);
    if (pre.length > 0) throw invalid(SERVICE, name, pre);

    const errs: FieldError[] = [];
    const policy = spec.ipFamilyPolicy;
    const policyValue = JSON.stringify(policy);
    if (old) {
      if (policy === 'SingleStack') {
        if (sameClusterIPs(old, spec) && ips.length > 1) spec.clusterIPs = ips.slice(0, 1);
        if (sameIPFamilies(old, spec) && strings(spec.ipFamilies).length > 1) spec.ipFamilies = strings(spec.ipFamilies).slice(0, 1);
      } else {
        if (strings(spec.clusterIPs).length < strings(old.clusterIPs).length && strings(old.clusterIPs)[0] !== CLUSTER_IP_NONE) {
          errs.push(invalidRendered('spec.ipFamilyPolicy', policyValue, "must be 'SingleStack' to release the secondary cluster IP"));
        }
        if (strings(spec.ipFamilies).length < strings(old.ipFamilies).length) {
          errs.push(invalidRendered('spec.ipFamilyPolicy', policyValue, "must be 'SingleStack' to release the secondary IP family"));
        }
      }
    }
    if (policy === 'SingleStack') {
      if (strings(spec.clusterIPs).length === 2) {
        errs.push(invalidRendered('spec.ipFamilyPolicy', policyValue, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
      }
      if (strings(spec.ipFamilies).length === 2) {
        errs.push(invalidRendered('spec.ipFamilyPolicy', policyValue, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
      }
    }
    const families = strings(spec.ipFamilies);
    const current = strings(spec.clusterIPs);
    for (let i = 0; i < current.length; i++) {
      const ip = current[i] as string;
      if (ip === CLUSTER_IP_NONE) break;
      if (i < families.length) continue;
      const fam = familyOf(ip) as IPFamily;
      if (!this.rangeFor(fam)) errs.push(invalidRendered(`spec.clusterIPs[${i}]`, goStringSlice(current), `${fam} is not configured on this cluster`));
      else families.push(fam);
    }
    if (families.length > 0) spec.ipFamilies = families;
    if (errs.length > 0) throw invalid(SERVICE, name, errs);

    if (spec.clusterIP === CLUSTER_IP_NONE && !hasSelector(spec)) {
      // Headless without a selector may name families this cluster does not serve.
      if (families.length === 0) families.push(this.primaryFamily);
      if (families.length < 2 && policy !== 'SingleStack') families.push(otherFamily(families[0] as string));
      spec.ipFamilies = families;
      return;
    }
    if (policy === 'RequireDualStack' && this.network.ipRanges.length < 2) {
      errs.push(invalidRendered('spec.ipFamilyPolicy', policyValue, 'this cluster is not configured for dual-stack services'));
    }
    families.forEach((f, i) => {
      if (!this.rangeFor(f)) errs.push(invalidRendered(`spec.ipFamilies[${i}]`, JSON.stringify(f), 'not configured on this cluster'));
    });
    if (errs.length > 0) throw invalid(SERVICE, name, errs);
    if (families.length === 0) families.push(this.primaryFamily);
    if (policy !== 'SingleStack' && families.length === 1 && this.network.ipRanges.length === 2) families.push(otherFamily(families[0] as string));
    spec.ipFamilies = families;
  }

  // -------------------------------------------------------------------------------------
  // Cluster IPs

  private async allocateIPs(svc: KubeObject, spec: ServiceSpec, wanted: Map<string, string>, txn: AllocationTransaction, dryRun: boolean): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const [family, ip] of wanted) {
      const range = this.rangeFor(family) as ServiceIPRange;
      if (ip === '') {
        let got: string;
        try {
          got = await this.allocations.allocateNextIP(range, this.owner(svc), dryRun);
        } catch (e) {
          if (e instanceof AllocationError) throw internalError(new Error(`failed to allocate a serviceIP: range is full`));
          throw e;
        }
        out.set(family, got);
        if (!dryRun) txn.onRevert(() => this.allocations.releaseIP(range, got));
        continue;
      }
      try {
        await this.allocations.allocateIP(range, ip, this.owner(svc), dryRun);
      } catch (e) {
        if (!(e instanceof AllocationError)) throw e;
        const why =
          e.failure === 'notInRange'
            ? `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${range.cidr}`
            : 'provided IP is already allocated';
        throw invalid(SERVICE, svc.metadata?.name ?? '', [
          invalidRendered('spec.clusterIPs', goStringSlice(strings(spec.clusterIPs)), `failed to allocate IP ${ip}: ${why}`),
        ]);
      }
      out.set(family, ip);
      if (!dryRun) txn.onRevert(() => this.allocations.releaseIP(range, ip));
    }
    return out;
  }

  private async allocateClusterIPs(svc: KubeObject, spec: ServiceSpec, txn: AllocationTransaction, dryRun: boolean): Promise<void> {
    if (spec.type === 'ExternalName') return;
    const ips = strings(spec.clusterIPs);
    if (ips[0] === CLUSTER_IP_NONE) return;
    const families = strings(spec.ipFamilies);
    const wanted = new Map<string, string>();
    families.forEach((f, i) => {
      if (i >= ips.length) ips.push('');
      wanted.set(f, ips[i] as string);
    });
    const got = await this.allocateIPs(svc, spec, wanted, txn, dryRun);
    families.forEach((f, i) => {
      const ip = got.get(f);
      if (ip !== undefined) ips[i] = ip;
    });
    spec.clusterIPs = ips;
    if (ips[0] !== undefined) spec.clusterIP = ips[0];
  }

  private async updateClusterIPs(svc: KubeObject, spec: ServiceSpec, old: ServiceSpec, txn: AllocationTransaction, dryRun: boolean): Promise<void> {
    if (matchesPreferDualStack(spec, old)) return;
    if (old.type === 'ExternalName' && spec.type !== 'ExternalName') {
      await this.allocateClusterIPs(svc, spec, txn, dryRun);
      return;
    }
    if (strings(old.clusterIPs)[0] === CLUSTER_IP_NONE) return;
    if (old.type !== 'ExternalName' && spec.type === 'ExternalName') {
      const oldIPs = strings(old.clusterIPs);
      strings(old.ipFamilies).forEach((f, i) => {
        const range = this.rangeFor(f);
        const ip = oldIPs[i];
        if (range && ip && !dryRun) txn.onCommit(() => this.allocations.releaseIP(range, ip));
      });
      return;
    }
    const oldFamilies = strings(old.ipFamilies);
    const families = strings(spec.ipFamilies);
    if (oldFamilies.length === 1 && families.length === 2) {
      const ips = strings(spec.clusterIPs);
      if (ips.length < 2) ips.push('');
      const second = families[1] as string;
      const got = await this.allocateIPs(svc, spec, new Map([[second, ips[1] as string]]), txn, dryRun);
      ips[1] = got.get(second) ?? (ips[1] as string);
      spec.clusterIPs = ips;
      return;
    }
    if (oldFamilies.length === 2 && families.length === 1) {
      const range = this.rangeFor(oldFamilies[1] as string);
      const ip = strings(old.clusterIPs)[1];
      if (range && ip && !dryRun) txn.onCommit(() => this.allocations.releaseIP(range, ip));
    }
  }

  // -------------------------------------------------------------------------------------
  // Node ports

  private portFailure(e: AllocationError): string {
    if (e.failure === 'notInRange') return `provided port is not in the valid range. The range of valid ports is ${portRangeString(this.network.nodePorts)}`;
    return e.failure === 'allocated' ? 'provided port is already allocated' : 'range is full';
  }

  /** Reserves `port` (throws AllocationError); a dry run only checks it. */
  private async reservePort(svc: KubeObject, port: number, txn: AllocationTransaction, op: DryRunPorts | undefined): Promise<void> {
    if (op) {
      op.take(port, await this.portTaken(port));
      return;
    }
    await this.allocations.allocatePort(this.network.nodePorts, port, this.owner(svc), false);
    txn.onRevert(() => this.allocations.releasePort(this.network.nodePorts, port));
  }

  /** Reserves the node port of `spec.ports[index]`; a refusal is that field's error. */
  private async takePort(svc: KubeObject, index: number, port: number, txn: AllocationTransaction, op: DryRunPorts | undefined): Promise<void> {
    try {
      await this.reservePort(svc, port, txn, op);
    } catch (e) {
      if (!(e instanceof AllocationError)) throw e;
      throw invalid(SERVICE, svc.metadata?.name ?? '', [invalidRendered(`spec.ports[${index}].nodePort`, String(port), this.portFailure(e))]);
    }
  }

  private async portTaken(port: number): Promise<boolean> {
    const r = this.network.nodePorts;
    return port >= r.base && port < r.base + r.size && (await this.allocations.hasPort(port));
  }

  private async nextPort(svc: KubeObject, txn: AllocationTransaction, op: DryRunPorts | undefined): Promise<number> {
    if (op) return op.next();
    try {
      const port = await this.allocations.allocateNextPort(this.network.nodePorts, this.owner(svc));
      txn.onRevert(() => this.allocations.releasePort(this.network.nodePorts, port));
      return port;
    } catch (e) {
      if (e instanceof AllocationError) throw internalError(new Error('failed to allocate a nodePort: range is full'));
      throw e;
    }
  }

  private async initNodePorts(svc: KubeObject, spec: ServiceSpec, txn: AllocationTransaction, dryRun: boolean): Promise<void> {
    const op = dryRun ? new DryRunPorts() : undefined;
    const ports = portsOf(spec);
    const byServicePort = new Map<number, number>();
    for (let i = 0; i < ports.length; i++) {
      const p = ports[i] as (typeof ports)[number];
      if (nodePortOf(p) === 0 && !allocatesNodePorts(spec)) continue;
      const servicePort = typeof p.port === 'number' ? p.port : 0;
      const known = byServicePort.get(servicePort) ?? 0;
      if (known === 0) {
        // The same service port (TCP and UDP) shares one node port.
        const requested = ports.filter((q) => q.port === servicePort).map(nodePortOf).find((n) => n !== 0) ?? 0;
        if (requested !== 0) {
          await this.takePort(svc, i, requested, txn, op);
          p.nodePort = requested;
          byServicePort.set(servicePort, requested);
        } else {
          const port = await this.nextPort(svc, txn, op);
          p.nodePort = port;
          byServicePort.set(servicePort, port);
        }
      } else if (nodePortOf(p) !== known) {
        if (nodePortOf(p) === 0) p.nodePort = known;
        else await this.takePort(svc, i, nodePortOf(p), txn, op);
      }
    }
  }

  private async allocateHealthCheckNodePort(svc: KubeObject, spec: ServiceSpec, txn: AllocationTransaction, dryRun: boolean): Promise<void> {
    const op = dryRun ? new DryRunPorts() : undefined;
    const wanted = typeof spec.healthCheckNodePort === 'number' ? spec.healthCheckNodePort : 0;
    if (wanted !== 0) {
      try {
        await this.reservePort(svc, wanted, txn, op);
      } catch (e) {
        if (!(e instanceof AllocationError)) throw e;
        throw internalError(new Error(`failed to allocate requested HealthCheck NodePort ${wanted}: ${this.portFailure(e)}`));
      }
      return;
    }
    spec.healthCheckNodePort = await this.nextPort(svc, txn, op);
  }

  private async updateNodePorts(svc: KubeObject, spec: ServiceSpec, old: ServiceSpec, txn: AllocationTransaction, dryRun: boolean): Promise<void> {
    const op = dryRun ? new DryRunPorts() : undefined;
    const release = (port: number): void => {
      if (!dryRun) txn.onCommit(() => this.allocations.releasePort(this.network.nodePorts, port));
    };
    const oldPorts = collectNodePorts(old, false);
    if (needsNodePort(old) && !needsNodePort(spec)) for (const port of oldPorts) release(port);
    if (needsNodePort(spec)) {
      const taken = new Set<number>();
      const seen = new Set<string>();
      const ports = portsOf(spec);
      for (let i = 0; i < ports.length; i++) {
        const p = ports[i] as (typeof ports)[number];
        if (nodePortOf(p) === 0 && !allocatesNodePorts(spec)) continue;
        let np = nodePortOf(p);
        if (np !== 0) {
          if (!oldPorts.includes(np) && !taken.has(np)) {
            await this.takePort(svc, i, np, txn, op);
            taken.add(np);
          }
        } else {
          np = await this.nextPort(svc, txn, op);
          p.nodePort = np;
        }
        const key = `${String(p.protocol ?? 'TCP')}/${np}`;
        if (seen.has(key)) throw internalError(new Error(`duplicate nodePort: {${String(p.protocol ?? 'TCP')} ${np}}`));
        seen.add(key);
      }
      const now = collectNodePorts(spec, false);
      for (const port of oldPorts) if (!now.includes(port)) release(port);
    }
    await this.updateHealthCheckNodePort(svc, spec, old, txn, dryRun, release);
  }

  private async updateHealthCheckNodePort(
    svc: KubeObject,
    spec: ServiceSpec,
    old: ServiceSpec,
    txn: AllocationTransaction,
    dryRun: boolean,
    release: (port: number) => void,
  ): Promise<void> {
    const needed = needsHealthCheckNodePort(old);
    const needs = needsHealthCheckNodePort(spec);
    const oldPort = typeof old.healthCheckNodePort === 'number' ? old.healthCheckNodePort : 0;
    if (!needed && needs) await this.allocateHealthCheckNodePort(svc, spec, txn, dryRun);
    else if (needed && !needs) {
      if (oldPort !== 0) release(oldPort);
      delete spec.healthCheckNodePort;
    }
  }
}

/** A dry run's node ports: refused only when known taken, otherwise numbered from 32769. */
class DryRunPorts {
  private readonly used: number[] = [];

  take(port: number, alreadyTaken: boolean): void {
    if (alreadyTaken || this.used.includes(port)) throw new AllocationError('allocated');
    this.used.push(port);
  }

  next(): number {
    const port = (this.used.length === 0 ? 32768 : Math.max(...this.used)) + 1;
    this.used.push(port);
    return port;
  }
}

function hasSelector(spec: ServiceSpec): boolean {
  return typeof spec.selector === 'object' && spec.selector !== null && Object.keys(spec.selector).length > 0;
}

/** Every node port a service holds (its health check port included unless told otherwise). */
function collectNodePorts(spec: ServiceSpec, withHealthCheck = true): number[] {
  const out = new Set<number>();
  for (const p of portsOf(spec)) if (nodePortOf(p) !== 0) out.add(nodePortOf(p));
  if (withHealthCheck && typeof spec.healthCheckNodePort === 'number' && spec.healthCheckNodePort !== 0) out.add(spec.healthCheckNodePort);
  return [...out];
}

/** PreferDualStack services keep their IPs as they are unless the update asks otherwise. */
function matchesPreferDualStack(spec: ServiceSpec, old: ServiceSpec): boolean {
  if (!spec.ipFamilyPolicy || old.type !== spec.type || !needsClusterIP(spec)) return false;
  if (spec.ipFamilyPolicy !== 'PreferDualStack') return false;
  if (old.ipFamilyPolicy && old.ipFamilyPolicy !== 'PreferDualStack') return false;
  return sameClusterIPs(old, spec) && sameIPFamilies(old, spec);
}

/** An update that leaves out allocated values keeps them (Kubernetes' patchAllocatedValues). */
export function patchAllocatedValues(spec: ServiceSpec, old: ServiceSpec): void {
  if (needsClusterIP(old) && needsClusterIP(spec)) {
    if (!spec.clusterIP && old.clusterIP) spec.clusterIP = old.clusterIP;
    if (strings(spec.clusterIPs).length === 0 && strings(old.clusterIPs).length > 0) spec.clusterIPs = strings(old.clusterIPs);
  }
  if (needsNodePort(old) && needsNodePort(spec)) {
    const used = new Set(portsOf(spec).map(nodePortOf).filter((n) => n !== 0 && collectNodePorts(old, false).includes(n)));
    const byName = new Map<string, number>();
    for (const p of portsOf(old)) byName.set(typeof p.name === 'string' ? p.name : '', nodePortOf(p));
    for (const p of portsOf(spec)) {
      if (nodePortOf(p) !== 0) continue;
      const before = byName.get(typeof p.name === 'string' ? p.name : '') ?? 0;
      if (before !== 0 && !used.has(before)) p.nodePort = before;
    }
  }
  if (needsHealthCheckNodePort(old) && needsHealthCheckNodePort(spec)) {
    if (!spec.healthCheckNodePort && old.healthCheckNodePort) spec.healthCheckNodePort = old.healthCheckNodePort;
  }
}
