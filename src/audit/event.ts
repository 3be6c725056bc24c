// Audit events as text: the audit.<domain>/v1 Event in JSON, fields in Go's order with Go's
// `omitempty`, and the one-line "legacy" format of the log backend.
import { group } from '../naming/index.js';
import type { AuditEvent, EventUser, ObjectReference, ResponseStatus } from './types.js';

/** The apiVersion events and event lists are written in. */
export function eventApiVersion(): string {
  return `${group('audit')}/v1`;
}

/** Microseconds since the epoch, now. */
export function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

// Events come in bursts within one second: its formatted part is reused.
let cachedSecond = NaN;
let cachedPrefix = '';

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits, UTC. */
export function microTime(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 19); // 2006-01-02T15:04:05
  }
  const frac = micros - second * 1_000_000;
  return `${cachedPrefix}.${frac < 100000 ? String(frac).padStart(6, '0') : String(frac)}Z`;
}

/** time.RFC3339Nano: trailing zeros of the fraction dropped. */
function rfc3339Nano(micros: number): string {
  const t = microTime(micros);
  const frac = t.slice(20, 26).replace(/0+$/, '');
  return `${t.slice(0, 19)}${frac ? `.${frac}` : ''}Z`;
}

const q = (s: string): string => JSON.stringify(s);

function sortedEntries<V>(m: Map<string, V> | Record<string, V>): [string, V][] {
  const entries = m instanceof Map ? [...m.entries()] : Object.entries(m);
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

// A request's user is written at every stage: its text is kept with the user object.
const userText = new WeakMap<EventUser, string>();

function userJson(u: EventUser): string {
  const cached = userText.get(u);
  if (cached !== undefined) return cached;
  let s = `{"username":${q(u.username)}`;
  if (u.uid) s += `,"uid":${q(u.uid)}`;
  if (u.groups && u.groups.length > 0) s += `,"groups":[${u.groups.map(q).join(',')}]`;
  if (u.extra) {
    const entries = sortedEntries(u.extra);
    // A nil value is written as null, as Go writes a nil ExtraValue.
    if (entries.length > 0) s += `,"extra":{${entries.map(([k, v]) => `${q(k)}:${v ? `[${v.map(q).join(',')}]` : 'null'}`).join(',')}}`;
  }
  s += '}';
  userText.set(u, s);
  return s;
}

function objectRefJson(r: ObjectReference): string {
  const parts: string[] = [];
  for (const key of ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const) {
    const v = r[key];
    if (v) parts.push(`"${key}":${q(v)}`);
  }
  return `{${parts.join(',')}}`;
}

function statusJson(st: ResponseStatus): string {
  let s = '{"metadata":{}';
  if (st.status) s += `,"status":${q(st.status)}`;
  if (st.message) s += `,"message":${q(st.message)}`;
  if (st.reason) s += `,"reason":${q(st.reason)}`;
  if (st.details !== undefined && st.details !== null) s += `,"details":${JSON.stringify(st.details)}`;
  if (st.code) s += `,"code":${st.code}`;
  return `${s}}`;
}

/** The event's JSON text, without a trailing newline. */
export function encodeEvent(ev: AuditEvent, apiVersion = eventApiVersion()): string {
  // Level and stage are fixed words; everything else is quoted.
  let s = `{"kind":"Event","apiVersion":${q(apiVersion)},"level":"${ev.level}","auditID":${q(ev.auditID)},"stage":"${ev.stage}","requestURI":${q(ev.requestURI)},"verb":${q(ev.verb)},"user":${userJson(ev.user)}`;
  if (ev.impersonatedUser) s += `,"impersonatedUser":${userJson(ev.impersonatedUser)}`;
  if (ev.sourceIPs.length > 0) s += `,"sourceIPs":[${ev.sourceIPs.map(q).join(',')}]`;
  if (ev.userAgent) s += `,"userAgent":${q(ev.userAgent)}`;
  if (ev.objectRef) s += `,"objectRef":${objectRefJson(ev.objectRef)}`;
  if (ev.responseStatus) s += `,"responseStatus":${statusJson(ev.responseStatus)}`;
  if (ev.requestObject !== undefined) s += `,"requestObject":${ev.requestObject}`;
  if (ev.responseObject !== undefined) s += `,"responseObject":${ev.responseObject}`;
  s += `,"requestReceivedTimestamp":"${microTime(ev.requestReceivedTimestamp)}","stageTimestamp":"${microTime(ev.stageTimestamp)}"`;
  if (ev.annotations && ev.annotations.size > 0) s += `,"annotations":{${sortedEntries(ev.annotations).map(([k, v]) => `${q(k)}:${q(v)}`).join(',')}}`;
  return `${s}}`;
}

/** An EventList holding already encoded events. */
export function encodeEventList(items: readonly string[], apiVersion = eventApiVersion()): string {
  return `{"kind":"EventList","apiVersion":${q(apiVersion)},"metadata":{},"items":[${items.join(',')}]}`;
}

/** Go's %q for the legacy format: printable ASCII as is, the rest escaped. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

const quotedList = (list: readonly string[]): string => list.map(goQuote).join(',');

/** The "legacy" one-line format: `<time> AUDIT: id="..." stage="..." ...`. */
export function legacyEventString(ev: AuditEvent): string {
  let username = '<none>';
  let groups = '<none>';
  if (ev.user.username) {
    username = ev.user.username;
    if (ev.user.groups && ev.user.groups.length > 0) groups = quotedList(ev.user.groups);
  }
  let asUser = '<self>';
  let asGroups = '<lookup>';
  if (ev.impersonatedUser) {
    asUser = ev.impersonatedUser.username;
    if (ev.impersonatedUser.groups) asGroups = quotedList(ev.impersonatedUser.groups);
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code) : '<deferred>';
  const ip = ev.sourceIPs[0] ?? '<unknown>';
  return (
    `${rfc3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${goQuote(ev.auditID)} stage=${goQuote(ev.stage)} ip=${goQuote(ip)} method=${goQuote(ev.verb)} ` +
    `user=${goQuote(username)} groups=${goQuote(groups)} as=${goQuote(asUser)} asgroups=${goQuote(asGroups)} user-agent=${goQuote(ev.userAgent)} ` +
    `namespace=${goQuote(namespace)} uri=${goQuote(ev.requestURI)} response="${response}"`
  );
}

// Most requests name only their peer, and most peers are few: the last answer is kept.
let lastPeer: string | undefined;
let lastPeerIps: readonly string[] = [];

/** The source IPs of a request as kube-apiserver lists them: X-Forwarded-For, X-Real-Ip, then the peer. */
export function sourceIPs(forwardedFor: string | undefined, realIp: string | undefined, remote: string | undefined): readonly string[] {
  if (!forwardedFor && !realIp && remote !== undefined) {
    if (remote !== lastPeer) {
      const ip = parseIp(remote);
      lastPeer = remote;
      lastPeerIps = ip ? [ip] : [];
    }
    return lastPeerIps;
  }
  const ips: string[] = [];
  if (forwardedFor) {
    for (const part of forwardedFor.split(',').slice(0, 64)) {
      const ip = parseIp(part.trim());
      if (ip) ips.push(ip);
    }
  }
  if (realIp) {
    const ip = parseIp(realIp);
    if (ip && !ips.includes(ip)) ips.push(ip);
  }
  const peer = remote ? parseIp(remote) : undefined;
  if (peer && (ips.length === 0 || ips[ips.length - 1] !== peer)) ips.push(peer);
  return ips;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** An IP in Go's printed form, or undefined; IPv4-mapped IPv6 prints as IPv4, as net.IP does. */
function parseIp(s: string): string | undefined {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(s);
  if (mapped) s = mapped[1]!;
  const v4 = IPV4.exec(s);
  if (v4) {
    // ParseIPSloppy accepts leading zeros; the printed form has none.
    const parts = v4.slice(1).map(Number);
    return parts.every((p) => p <= 255) ? parts.join('.') : undefined;
  }
  if (s.includes(':') && s.length <= 45 && /^[0-9a-fA-F:.]+$/.test(s)) {
    try {
      return new URL(`http://[${s}]/`).hostname.slice(1, -1);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
