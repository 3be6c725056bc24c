// IP addresses and the service CIDR: parsing, Go's canonical text form, and the range of
// addresses a service may get (the network address, and for IPv4 the broadcast address,
// excluded; IPv6 ranges capped at 65536 addresses, as Kubernetes' allocator caps them).
import { isIPv4, isIPv6 } from 'node:net';

export type IPFamily = 'IPv4' | 'IPv6';

interface ParsedIP {
  family: IPFamily;
  value: bigint;
}

export function parseIP(text: string): ParsedIP | undefined {
  if (isIPv4(text)) {
    const value = text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
    return { family: 'IPv4', value };
  }
  if (!isIPv6(text)) return undefined;
  let body = text.toLowerCase().replace(/%.*$/, '');
  // An embedded IPv4 tail counts as the last two groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (tail) {
    const v4 = parseIP(tail[1] as string);
    if (!v4) return undefined;
    body = `${body.slice(0, -(tail[1] as string).length)}${(v4.value >> 16n).toString(16)}:${(v4.value & 0xffffn).toString(16)}`;
  }
  const [head, rest] = body.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const missing = 8 - left.length - right.length;
  const groups = rest === undefined ? left : [...left, ...Array<string>(missing).fill('0'), ...right];
  if (groups.length !== 8) return undefined;
  const value = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  // Go reads an IPv4-mapped IPv6 address as IPv4.
  if (value >> 32n === 0xffffn) return { family: 'IPv4', value: value & 0xffffffffn };
  return { family: 'IPv6', value };
}

export function formatIP(ip: ParsedIP): string {
  if (ip.family === 'IPv4') {
    const v = ip.value;
    return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((ip.value >> BigInt(i * 16)) & 0xffffn));
  // The longest run of two or more zero groups (the first of equals) becomes `::`.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function familyOf(text: string): IPFamily | undefined {
  return parseIP(text)?.family;
}

/** Kubernetes' message for a string that is not an IP address. */
export const INVALID_IP_MESSAGE = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

const STATIC_MIN = 16;
const STATIC_MAX = 256;
const STATIC_STEP = 16;

/** The addresses one service CIDR hands out. Offsets count from the first usable address. */
export class ServiceIPRange {
  readonly family: IPFamily;
  /** The CIDR as Go prints it: `10.0.0.0/24`. */
  readonly cidr: string;
  /** Number of usable addresses. */
  readonly size: number;
  /**
   * Offsets below this form the static sub-range: dynamic allocation takes addresses above
   * it first, so that addresses users pick by hand are rarely taken.
   */
  readonly staticOffset: number;
  private readonly network: bigint;
  private readonly prefix: number;
  private readonly first: bigint;

  constructor(text: string) {
    const [addr, bits, extra] = text.trim().split('/');
    const ip = addr ? parseIP(addr) : undefined;
    const width = ip?.family === 'IPv6' ? 128 : 32;
    const prefix = bits !== undefined && /^\d+$/.test(bits) ? Number(bits) : NaN;
    if (!ip || extra !== undefined || !(prefix >= 0 && prefix <= width)) {
      throw new Error(`invalid CIDR address: ${text.trim()}`);
    }
    this.family = ip.family;
    this.prefix = prefix;
    const hostBits = BigInt(width - prefix);
    this.network = (ip.value >> hostBits) << hostBits;
    this.cidr = `${formatIP({ family: ip.family, value: this.network })}/${prefix}`;
    const total = 1n << hostBits;
    let max = ip.family === 'IPv6' ? (total > 65536n ? 65536n : total) : total - 1n;
    max -= 1n;
    this.size = Number(max < 0n ? 0n : max);
    this.first = this.network + 1n;
    const offset = total <= BigInt(STATIC_MIN) ? 0 : Number(total / BigInt(STATIC_STEP));
    this.staticOffset = total <= BigInt(STATIC_MIN) ? 0 : Math.min(Math.max(offset, STATIC_MIN), STATIC_MAX);
  }

  /** The address at `offset` (0 is the first usable one). */
  at(offset: number): string {
    return formatIP({ family: this.family, value: this.first + BigInt(offset) });
  }

  /** The offset of `ip` when the range hands it out. */
  offsetOf(ip: string): number | undefined {
    const parsed = parseIP(ip);
    if (!parsed || parsed.family !== this.family) return undefined;
    const width = this.family === 'IPv6' ? 128 : 32;
    const hostBits = BigInt(width - this.prefix);
    if (parsed.value >> hostBits !== this.network >> hostBits) return undefined;
    const offset = parsed.value - this.first;
    if (offset < 0n || offset >= BigInt(this.size)) return undefined;
    return Number(offset);
  }

  /** The network address, which a dry run reports instead of picking an address. */
  networkAddress(): string {
    return formatIP({ family: this.family, value: this.network });
  }
}

/** `--service-cluster-ip-range`: one CIDR, or two of different families (dual-stack). */
export function parseServiceClusterIPRanges(flag: string): ServiceIPRange[] {
  const parts = flag.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0 || parts.length > 2) throw new Error('--service-cluster-ip-range: expected one CIDR, or two of different IP families');
  const ranges = parts.map((p) => {
    try {
      return new ServiceIPRange(p);
    } catch (e) {
      throw new Error(`--service-cluster-ip-range: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
  if (ranges.length === 2 && ranges[0]?.family === ranges[1]?.family) {
    throw new Error('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP families');
  }
  return ranges;
}

/** `--service-node-port-range`: `30000-32767`, `30000+2767` or one port. */
export interface PortRange {
  base: number;
  size: number;
}

export function parsePortRange(text: string): PortRange {
  const t = text.trim();
  let m = /^(\d+)-(\d+)$/.exec(t);
  let low: number;
  let high: number;
  if (m) {
    low = Number(m[1]);
    high = Number(m[2]);
  } else if ((m = /^(\d+)\+(\d+)$/.exec(t))) {
    low = Number(m[1]);
    high = low + Number(m[2]);
  } else if (/^\d+$/.test(t)) {
    low = high = Number(t);
  } else {
    throw new Error(`--service-node-port-range: unable to parse port range: ${t}`);
  }
  if (low < 0 || high > 65535 || high < low) throw new Error(`--service-node-port-range: invalid port range: ${t}`);
  return { base: low, size: high - low + 1 };
}

export function portRangeString(r: PortRange): string {
  return `${r.base}-${r.base + r.size - 1}`;
}
