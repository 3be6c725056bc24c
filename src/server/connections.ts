// Connection hygiene for the listener: how long a connection may take to present its first
// request (TLS handshake included), how long it may sit idle between requests, how many
// connections that have not shown credentials may be held open at once, and how many
// streams an HTTP/2 client may reset before the session is ended.
//
// Each TCP connection is one entry, from accept to close. HTTP/1.1 requests find their entry
// through the TLS socket, HTTP/2 requests through the session.
import { readFileSync } from 'node:fs';
import { constants as h2, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface ConnectionLimits {
  /** From accept to the first request's headers (kube-apiserver: 32 s). */
  headerTimeoutMs: number;
  /** With no request in progress (kube-apiserver: 90 s; HTTP/2 sessions get GOAWAY). */
  idleTimeoutMs: number;
  /** Connections not yet seen with an authenticated user; past this the oldest idle ones close. */
  maxUnauthenticated: number;
  /** Streams a client may reset within `resetWindowMs` before its session is ended. */
  maxResetsPerWindow: number;
  resetWindowMs: number;
}

/**
 * The limits a server gets unless configured. Half of the process's open-file limit may be
 * held by connections that have not shown credentials: a burst of honest clients (watchers
 * reconnecting after a restart) fits, and a flood of idle anonymous connections still
 * leaves the other half for authenticated clients.
 */
export function defaultConnectionLimits(openFiles = openFileLimit()): ConnectionLimits {
  return {
    headerTimeoutMs: 32_000,
    idleTimeoutMs: 90_000,
    maxUnauthenticated: Math.max(256, Math.floor(openFiles / 2)),
    maxResetsPerWindow: 200,
    resetWindowMs: 10_000,
  };
}

/** The soft limit on open files (Linux `/proc/self/limits`); 1024, the common default, when unknown. */
export function openFileLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const field = line?.split(/\s{2,}/)[1];
    // Linux's own ceiling (fs.nr_open) stands in for "unlimited".
    const soft = field === 'unlimited' ? 1_048_576 : Number(field);
    return Number.isSafeInteger(soft) && soft > 0 ? soft : 1024;
  } catch {
    return 1024;
  }
}

interface Entry {
  raw: Socket;
  tls?: TLSSocket;
  session?: Http2Session;
  opened: number;
  /** Requests (streams) being handled. */
  active: number;
  authenticated: boolean;
  timer?: NodeJS.Timeout;
  resets: number[];
}

/** Whether a reset count over a window is abuse: the times of past resets, pruned in place. */
export function tooManyResets(times: number[], now: number, limits: Pick<ConnectionLimits, 'maxResetsPerWindow' | 'resetWindowMs'>): boolean {
  while (times.length > 0 && times[0]! <= now - limits.resetWindowMs) times.shift();
  return times.length > limits.maxResetsPerWindow;
}

export class ConnectionGuard {
  private readonly entries = new Set<Entry>();
  private readonly byRaw = new WeakMap<Socket, Entry>();
  private readonly byTls = new WeakMap<object, Entry>();
  private readonly bySession = new WeakMap<object, Entry>();
  /** The TLS socket whose `secureConnection` is being dispatched (the session event comes inside it). */
  private securing: TLSSocket | undefined;

  constructor(private readonly limits: ConnectionLimits) {}

  get size(): number {
    return this.entries.size;
  }

  /** A TCP connection was accepted. */
  accepted(raw: Socket): void {
    const entry: Entry = { raw, opened: Date.now(), active: 0, authenticated: false, resets: [] };
    this.entries.add(entry);
    this.byRaw.set(raw, entry);
    raw.once('close', () => this.forget(entry));
    this.arm(entry, this.limits.headerTimeoutMs);
    this.shed();
  }

  /** Called before the HTTP/2 layer sees the TLS socket, so that its session can be linked. */
  beforeSecure(tls: TLSSocket): void {
    this.securing = tls;
    const raw = (tls as unknown as { _parent?: Socket })._parent;
    const entry = raw ? this.byRaw.get(raw) : undefined;
    if (entry) {
      entry.tls = tls;
      this.byTls.set(tls, entry);
      tls.once('close', () => this.forget(entry));
    }
  }

  secured(): void {
    this.securing = undefined;
  }

  /** An HTTP/2 session began on the TLS socket being secured. */
  session(session: Http2Session): void {
    const entry = this.securing ? this.byTls.get(this.securing) : undefined;
    if (!entry) return;
    entry.session = session;
    this.bySession.set(session, entry);
    session.on('stream', (stream: ServerHttp2Stream) => {
      // 'aborted' fires when the peer resets a stream before the answer was complete.
      stream.once('aborted', () => this.reset(entry));
    });
  }

  /** A request started on the connection `conn` (an HTTP/2 session or the TLS socket). */
  requestStarted(conn: object | undefined): void {
    const entry = this.entryOf(conn);
    if (!entry) return;
    entry.active++;
    clearTimeout(entry.timer);
    entry.timer = undefined;
  }

  requestEnded(conn: object | undefined): void {
    const entry = this.entryOf(conn);
    if (!entry) return;
    entry.active = Math.max(0, entry.active - 1);
    if (entry.active === 0) this.arm(entry, this.limits.idleTimeoutMs);
  }

  /** The connection carried a request from an authenticated (not anonymous) user. */
  authenticated(conn: object | undefined): void {
    const entry = this.entryOf(conn);
    if (entry) entry.authenticated = true;
  }

  private forget(entry: Entry): void {
    clearTimeout(entry.timer);
    this.entries.delete(entry);
  }

  private destroy(entry: Entry): void {
    this.forget(entry);
    (entry.tls ?? entry.raw).destroy();
  }

  private entryOf(conn: object | undefined): Entry | undefined {
    if (!conn) return undefined;
    return this.bySession.get(conn) ?? this.byTls.get(conn);
  }

  private arm(entry: Entry, ms: number): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => this.close(entry, h2.NGHTTP2_NO_ERROR), ms);
    entry.timer.unref();
  }

  /** Closes an HTTP/2 session with GOAWAY carrying `code`, any other connection at once. */
  private close(entry: Entry, code: number): void {
    const session = entry.session;
    if (session && !session.destroyed) {
      session.goaway(code);
      // Give the GOAWAY a moment to leave before the socket goes.
      const t = setTimeout(() => {
        session.destroy();
        this.destroy(entry);
      }, 50);
      t.unref();
      return;
    }
    this.destroy(entry);
  }

  private reset(entry: Entry): void {
    entry.resets.push(Date.now());
    if (tooManyResets(entry.resets, Date.now(), this.limits)) {
      entry.resets.length = 0;
      this.close(entry, h2.NGHTTP2_ENHANCE_YOUR_CALM);
    }
  }

  /** Over the cap of unauthenticated connections, the oldest idle ones are closed first. */
  private shed(): void {
    let unauthenticated = 0;
    for (const e of this.entries) if (!e.authenticated) unauthenticated++;
    if (unauthenticated <= this.limits.maxUnauthenticated) return;
    // Entries iterate in accept order, so the first idle ones are the oldest.
    for (const e of this.entries) {
      if (unauthenticated <= this.limits.maxUnauthenticated) break;
      if (e.authenticated || e.active > 0) continue;
      this.destroy(e);
      unauthenticated--;
    }
  }

  /** Ends every connection (shutdown). */
  destroyAll(): void {
    for (const e of [...this.entries]) this.destroy(e);
  }
}
