// Addresses handed out to simulated pods and nodes: one pool per CIDR, from the CIDR's first
// address after the network's, reusing released ones first (KWOK's pool). A pool that runs
// out keeps counting past its CIDR's end, as KWOK's does, rather than fail a pod.

import { isIPv4 } from 'node:net';

/** An IPv4 or IPv6 address as a bigint, and back. */
export function ipToBigInt(ip: string): bigint | undefined {
  if (isIPv4(ip)) {
    const parts = ip.split('.').map(Number);
    return parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n);
  }
  if (!ip.includes(':') || !/^[0-9a-fA-F:.]+$/.test(ip)) return undefined;
  let head = ip;
  let tail4: bigint | undefined;
  // An embedded IPv4 tail (`::ffff:1.2.3.4`).
  const lastColon = ip.lastIndexOf(':');
  if (ip.slice(lastColon + 1).includes('.')) {
    const v4 = ip.slice(lastColon + 1);
    if (!isIPv4(v4)) return undefined;
    tail4 = ipToBigInt(v4);
    head = `${ip.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  const fill = 8 - left.length - right.length;
  if ((halves.length === 1 && fill !== 0) || fill < 0) return undefined;
  const all = [...left, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...right];
  if (all.length !== 8 || all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  let value = all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  if (tail4 !== undefined) value = (value & ~0xffffffffn) | tail4;
  return value;
}

export function bigIntToIp(value: bigint, v6: boolean): string {
  if (!v6) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((value >> BigInt(i * 16)) & 0xffffn).toString(16));
  // The shortest form: the longest run of zero groups (two or more) becomes `::`.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

export interface Cidr {
  base: bigint;
  bits: number;
  v6: boolean;
}

export function parseCidr(cidr: string): Cidr | undefined {
  const slash = cidr.indexOf('/');
  if (slash < 0) return undefined;
  const ip = cidr.slice(0, slash);
  const prefix = cidr.slice(slash + 1);
  const v6 = !isIPv4(ip);
  const value = ipToBigInt(ip);
  const width = v6 ? 128 : 32;
  if (value === undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > width) return undefined;
  const host = BigInt(width - Number(prefix));
  const base = (value >> host) << host;
  return { base, bits: Number(prefix), v6 };
}

function contains(c: Cidr, ip: string): boolean {
  const v = ipToBigInt(ip);
  if (v === undefined || isIPv4(ip) === c.v6) return false;
  const host = BigInt((c.v6 ? 128 : 32) - c.bits);
  return v >> host === c.base >> host;
}

export class IPPool {
  private readonly used = new Set<string>();
  private readonly released = new Set<string>();
  private index = 0n;

  constructor(private readonly cidr: Cidr) {}

  /** A free address: a released one first, else the next one never handed out. */
  get(): string {
    for (const ip of this.released) {
      this.released.delete(ip);
      this.used.add(ip);
      return ip;
    }
    for (;;) {
      this.index++;
      const ip = bigIntToIp(this.cidr.base + this.index, this.cidr.v6);
      if (this.used.has(ip)) continue;
      this.used.add(ip);
      return ip;
    }
  }

  /** Marks an address in use (one an existing pod holds). */
  use(ip: string): void {
    if (!contains(this.cidr, ip)) return;
    this.released.delete(ip);
    this.used.add(ip);
  }

  put(ip: string): void {
    if (!this.used.delete(ip)) return;
    this.released.add(ip);
  }

  inUse(): number {
    return this.used.size;
  }
}

/** Pools by CIDR text, made on first use; an unparseable CIDR has none. */
export class IPPools {
  private readonly pools = new Map<string, IPPool>();

  pool(cidr: string): IPPool | undefined {
    let p = this.pools.get(cidr);
    if (!p) {
      const parsed = parseCidr(cidr);
      if (!parsed) return undefined;
      p = new IPPool(parsed);
      this.pools.set(cidr, p);
    }
    return p;
  }
}
