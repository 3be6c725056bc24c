// Where the proxy subresources may send a request, as kube-apiserver decides it: the
// `[scheme:]name[:port]` form of a proxied object's name, the address rule (only global
// unicast addresses: no loopback, link-local, multicast, unspecified or broadcast, so a
// caller cannot reach the API server's own host or a cloud metadata service through it),
// the cleaning of the proxied path and its escaping as Go's URL writes it.
import { isIPv4, isIPv6 } from 'node:net';
import { posix } from 'node:path';

/** `name`, `name:port` or `scheme:name:port`, with scheme `http`, `https` or empty. */
export interface SchemeNamePort {
  scheme: '' | 'http' | 'https';
  name: string;
  port: string;
}

/** Port names as Kubernetes validates them (IANA_SVC_NAME): 1-15 of `[a-z0-9-]`, a letter, no `--`, no hyphen at either end. */
export function isValidPortName(name: string): boolean {
  return name.length >= 1 && name.length <= 15 && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(name) && /[a-z]/.test(name) && !name.includes('--');
}

/** A port number as a URL may carry it: decimal digits only, 1 to 65535. */
export function parsePortNumber(port: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(port)) return undefined;
  const n = Number(port);
  return n >= 1 && n <= 65535 ? n : undefined;
}

/**
 * Splits a proxied object's id; undefined when it is not one of the three forms (kube:
 * `invalid pod request "..."`). Each part is checked on its own: the name holds none of the
 * characters a URL gives meaning to, and the port is a number or a port name, so no part can
 * turn into userinfo, another host or a path when the target is built.
 */
export function splitSchemeNamePort(id: string): SchemeNamePort | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = parts as [string, string];
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string];
  else return undefined;
  if (name === '' || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return undefined;
  if (/[/@?#\\%\s[\]]/.test(name)) return undefined;
  if (port !== '' && parsePortNumber(port) === undefined && !isValidPortName(port)) return undefined;
  return { scheme: scheme as SchemeNamePort['scheme'], name, port };
}

/** The 16 bytes of an IP address (IPv4 as IPv4-mapped), or undefined when `text` is not one. */
export function parseIP(text: string): Uint8Array | undefined {
  if (isIPv4(text)) return Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...text.split('.').map(Number)]);
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const groups = (s: string | undefined): number[] => {
    if (!s) return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (g.includes('.')) {
        const b = g.split('.').map(Number);
        out.push((b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!);
      } else out.push(parseInt(g, 16));
    }
    return out;
  };
  const h = groups(head);
  const t = groups(tail);
  const words = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

function isMappedV4(b: Uint8Array): boolean {
  return b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}

/**
 * Go's `IP.IsGlobalUnicast`, the rule kube-apiserver's proxy applies to a target address:
 * false for unspecified, loopback, multicast, link-local and the IPv4 broadcast address.
 * Private ranges are global unicast.
 */
export function isGlobalUnicast(ip: string): boolean {
  const b = parseIP(ip);
  if (!b) return false;
  if (isMappedV4(b)) {
    const [a, c, d, e] = [b[12]!, b[13]!, b[14]!, b[15]!];
    if (a === 0 && c === 0 && d === 0 && e === 0) return false;
    if (a === 255 && c === 255 && d === 255 && e === 255) return false;
    if (a === 127) return false;
    if (a >= 224 && a <= 239) return false;
    if (a === 169 && c === 254) return false;
    return true;
  }
  if (b.every((x) => x === 0)) return false;
  if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) return false;
  if (b[0] === 0xff) return false;
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return false;
  return true;
}

/** Decides whether the proxy may connect to an IP address; the default is kube's rule. */
export type AddressPolicy = (ip: string) => boolean;

export const defaultAddressPolicy: AddressPolicy = isGlobalUnicast;

/** The text kube-apiserver answers (400) for a target outside the rule. */
export const ADDRESS_NOT_ALLOWED = 'address not allowed';

/**
 * Go's `path.Join` of a base path and the proxied path, keeping the request's trailing
 * slash: `..` and `.` segments are resolved, so a proxied path cannot climb above the root.
 */
export function joinPreserveTrailingSlash(base: string, sub: string): string {
  const parts = [base, sub].filter((p) => p !== '');
  if (parts.length === 0) return '';
  let joined = posix.normalize(parts.join('/'));
  if (joined.length > 1 && joined.endsWith('/')) joined = joined.slice(0, -1);
  if (joined === '.') joined = '';
  const last = parts[parts.length - 1]!;
  if (last.endsWith('/') && !joined.endsWith('/')) joined += '/';
  return joined;
}

// What Go leaves unescaped in a URL path: unreserved characters, '/' and the sub-delimiters
// it allows there.
const PATH_SAFE = /[A-Za-z0-9\-._~$&+,/:;=@]/;

/** A decoded path as Go's `url.URL.EscapedPath` writes it. */
export function escapePath(path: string): string {
  let out = '';
  for (const ch of path) {
    if (PATH_SAFE.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `host:port` for a URL, brackets around an IPv6 address (Go's `net.JoinHostPort`). */
export function joinHostPort(host: string, port: string | number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A host for a URL without a port: an IPv6 address in brackets. */
export function hostOnly(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The URL of a proxy target, built from its checked parts: `ip` must be an IP address and
 * `port` a port number, and the parsed URL must name exactly that host and port with no user
 * information (the check runs on the final URL, after the parser had its say). Throws the
 * 400 `address not allowed` otherwise, or when `policy` refuses the address.
 */
export function targetURL(scheme: 'http' | 'https', ip: string, port: string | number | undefined, path: string, query: string, policy: AddressPolicy): URL {
  const want = parseIP(ip);
  const portText = port === undefined || port === '' ? '' : String(port);
  if (!want || (portText !== '' && parsePortNumber(portText) === undefined)) throw new TargetError();
  const url = new URL(`${scheme}://${portText === '' ? hostOnly(ip) : joinHostPort(ip, portText)}${path.startsWith('/') || path === '' ? path : `/${path}`}${query ? `?${query}` : ''}`);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const got = parseIP(host);
  const defaultPort = scheme === 'https' ? '443' : '80';
  const samePort = url.port === portText || (url.port === '' && portText === defaultPort);
  if (!got || !got.every((b, i) => b === want[i]) || !samePort || url.username !== '' || url.password !== '' || !policy(host)) throw new TargetError();
  return url;
}

/** A target that is not an allowed address (kube's 400 `address not allowed`). */
export class TargetError extends Error {
  constructor() {
    super(ADDRESS_NOT_ALLOWED);
    this.name = 'TargetError';
  }
}
