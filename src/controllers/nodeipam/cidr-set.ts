// One cluster CIDR cut into node CIDRs of one mask size, and which of them are in use
// (kube-controller-manager's range allocator keeps one such set per IP family). Allocation
// goes round the range from after the last CIDR handed out, so a CIDR just released is not
// handed out again at once.
import { formatIP, parseIP, type IPFamily } from '../../apis/core/service-ip.js';

export interface ParsedCIDR {
  family: IPFamily;
  /** The network address (host bits cleared). */
  base: bigint;
  prefix: number;
}

function width(family: IPFamily): number {
  return family === 'IPv4' ? 32 : 128;
}

/** Go's `net.ParseCIDR`: an address, `/`, a prefix length in decimal; the host bits are cleared. */
export function parseCIDR(text: string): ParsedCIDR | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(bits)) return undefined;
  // An IPv4-mapped address is read as IPv4, its prefix counted in IPv6 bits, as Go counts it.
  const mapped = ip.family === 'IPv4' && text.slice(0, slash).includes(':');
  const prefix = Number(bits) - (mapped ? 96 : 0);
  if (prefix < 0 || prefix > width(ip.family)) return undefined;
  const host = BigInt(width(ip.family) - prefix);
  return { family: ip.family, base: (ip.value >> host) << host, prefix };
}

export function formatCIDR(c: ParsedCIDR): string {
  return `${formatIP({ family: c.family, value: c.base })}/${c.prefix}`;
}

/** The largest difference between the cluster's prefix and the node mask (kube refuses more for IPv6). */
export const MAX_IPV6_MASK_DIFF = 16;
/** The node CIDRs one set may hold: beyond, a bitmap of them would not fit in memory. */
export const MAX_IPV4_MASK_DIFF = 24;

export class CIDRSetError extends Error {}

export class CIDRSet {
  readonly size: number;
  private readonly used = new Set<number>();
  private nextCandidate = 0;
  private readonly hostBits: bigint;

  constructor(
    readonly cluster: ParsedCIDR,
    readonly maskSize: number,
  ) {
    const diff = maskSize - cluster.prefix;
    if (diff < 0) throw new CIDRSetError(`the node CIDR mask size /${maskSize} is smaller than the prefix of the cluster CIDR ${formatCIDR(cluster)}`);
    if (maskSize > width(cluster.family)) throw new CIDRSetError(`the node CIDR mask size /${maskSize} is larger than an ${cluster.family} address`);
    if (cluster.family === 'IPv6' && diff > MAX_IPV6_MASK_DIFF) {
      throw new CIDRSetError(`the node CIDR size is too big: /${maskSize} in ${formatCIDR(cluster)} is more than ${MAX_IPV6_MASK_DIFF} bits longer than the cluster's prefix`);
    }
    if (cluster.family === 'IPv4' && diff > MAX_IPV4_MASK_DIFF) {
      throw new CIDRSetError(`the node CIDR size is too big: /${maskSize} in ${formatCIDR(cluster)} is more than ${MAX_IPV4_MASK_DIFF} bits longer than the cluster's prefix`);
    }
    this.size = 2 ** diff;
    this.hostBits = BigInt(width(cluster.family) - maskSize);
  }

  /** Node CIDRs in use. */
  inUse(): number {
    return this.used.size;
  }

  private cidrAt(index: number): string {
    return formatCIDR({ family: this.cluster.family, base: this.cluster.base + (BigInt(index) << this.hostBits), prefix: this.maskSize });
  }

  /** The next free node CIDR, marked in use; undefined when the range is exhausted. */
  allocateNext(): string | undefined {
    if (this.used.size >= this.size) return undefined;
    // Never more steps than CIDRs in use: the range is not full.
    for (let i = 0; i < this.size; i++) {
      const candidate = (this.nextCandidate + i) % this.size;
      if (this.used.has(candidate)) continue;
      this.used.add(candidate);
      this.nextCandidate = (candidate + 1) % this.size;
      return this.cidrAt(candidate);
    }
    return undefined;
  }

  /** The indexes of the node CIDRs `text` covers (all of them when it is larger than one). */
  private span(text: string): [number, number] {
    const c = parseCIDR(text);
    if (!c || c.family !== this.cluster.family) throw new CIDRSetError(`${text} is not an ${this.cluster.family} CIDR`);
    const w = width(c.family);
    const end = (p: ParsedCIDR): bigint => p.base + (1n << BigInt(w - p.prefix)) - 1n;
    const lo = c.base > this.cluster.base ? c.base : this.cluster.base;
    const hi = end(c) < end(this.cluster) ? end(c) : end(this.cluster);
    if (lo > hi) throw new CIDRSetError(`cidr ${text} is out the range of cluster cidr ${formatCIDR(this.cluster)}`);
    return [Number((lo - this.cluster.base) >> this.hostBits), Number((hi - this.cluster.base) >> this.hostBits)];
  }

  /** Marks the node CIDRs `text` covers in use (a node's existing podCIDR); throws when it is outside the range. */
  occupy(text: string): void {
    const [from, to] = this.span(text);
    for (let i = from; i <= to; i++) this.used.add(i);
  }

  /** Frees the node CIDRs `text` covers; throws when it is outside the range. */
  release(text: string): void {
    const [from, to] = this.span(text);
    for (let i = from; i <= to; i++) this.used.delete(i);
  }

  /** True when `text` lies in this set's cluster CIDR. */
  covers(text: string): boolean {
    try {
      this.span(text);
      return true;
    } catch {
      return false;
    }
  }
}
