// Logs of simulated pods (KWOK's `Logs` and `ClusterLogs`): the file configured for the
// container, read as the kubelet reads a container's log (CRI lines `<time> <stream> <P|F>
// <text>`, or Docker's JSON lines; other lines as they are), with the log options applied.
// A container with no file configured has an empty log.

import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { ClusterLogs, LogSource, PodLogs } from './config.js';

export interface LogOptions {
  /** Keep answering what is appended to the file, until the request ends. */
  follow?: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

/** The configured source of a container's log: the pod's own `Logs` first, then `ClusterLogs`. */
export function findLogSource(logs: readonly PodLogs[], clusterLogs: readonly ClusterLogs[], namespace: string, pod: string, container: string): LogSource | undefined {
  const pick = (sources: readonly LogSource[]): LogSource | undefined =>
    sources.find((s) => s.containers.includes(container)) ?? sources.find((s) => s.containers.length === 0);
  const own = logs.find((l) => l.name === pod && l.namespace === namespace);
  if (own) return pick(own.logs);
  for (const c of clusterLogs) {
    if (c.matchNamespaces.length > 0 && !c.matchNamespaces.includes(namespace)) continue;
    if (c.matchNames.length > 0 && !c.matchNames.includes(pod)) continue;
    const found = pick(c.logs);
    if (found) return found;
  }
  return undefined;
}

export interface LogLine {
  /** RFC 3339 time of the line, when the format carries one. */
  time?: string;
  text: string;
}

const CRI_LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})) (stdout|stderr) (P|F) (.*)$/;

/** One line of a log file: CRI, Docker JSON, or plain text. A partial CRI line (`P`) has no line break. */
export function parseLogLine(line: string): LogLine & { partial: boolean } {
  const cri = CRI_LINE.exec(line);
  if (cri) return { time: cri[1]!, text: cri[4]!, partial: cri[3] === 'P' };
  if (line.startsWith('{')) {
    try {
      const v = JSON.parse(line) as { log?: unknown; time?: unknown };
      if (typeof v.log === 'string') {
        const text = v.log.endsWith('\n') ? v.log.slice(0, -1) : v.log;
        return { ...(typeof v.time === 'string' ? { time: v.time } : {}), text, partial: !v.log.endsWith('\n') };
      }
    } catch {
      // Not JSON: a plain line.
    }
  }
  return { text: line, partial: false };
}

/** How often a followed log file is looked at for more lines. */
const FOLLOW_POLL_MS = 250;
/** The most read from a followed file at once. */
const FOLLOW_CHUNK = 1024 * 1024;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The lines of `file` as the options select them, as text chunks; an unreadable file is an
 * error. With `follow`, lines appended later come too, until `signal` aborts (the file is
 * looked at a few times a second; one truncated or replaced is read again from its start).
 */
export async function* readLog(file: string, opts: LogOptions, nowMs: number, signal?: AbortSignal): AsyncGenerator<string> {
  let since: number | undefined;
  if (opts.sinceSeconds !== undefined) since = nowMs - opts.sinceSeconds * 1000;
  if (opts.sinceTime !== undefined) {
    const t = Date.parse(opts.sinceTime);
    if (Number.isFinite(t) && (since === undefined || t > since)) since = t;
  }
  let budget = opts.limitBytes ?? Infinity;
  /** The text of one line as answered, or undefined when the options leave it out. */
  const format = (raw: string): string | undefined => {
    const line = parseLogLine(raw);
    if (since !== undefined && line.time !== undefined && Date.parse(line.time) < since) return undefined;
    return `${opts.timestamps && line.time ? `${line.time} ` : ''}${line.text}${line.partial ? '' : '\n'}`;
  };
  /** What of `out` the byte budget still allows. */
  const take = (out: string): string => {
    const bytes = Buffer.byteLength(out);
    const chunk = bytes > budget ? Buffer.from(out).subarray(0, budget).toString('utf8') : out;
    budget -= bytes;
    return chunk;
  };
  // What the file holds now; with `follow`, what is appended after it comes next.
  const size = (await stat(file)).size;
  if (size > 0) {
    const stream = createReadStream(file, { encoding: 'utf8', end: size - 1 });
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    // tailLines keeps the last N lines; otherwise lines stream as they are read.
    const tail: string[] = [];
    const tailing = opts.tailLines !== undefined;
    try {
      for await (const raw of lines) {
        const out = format(raw);
        if (out === undefined) continue;
        if (tailing) {
          tail.push(out);
          if (tail.length > opts.tailLines!) tail.shift();
          continue;
        }
        if (budget <= 0) return;
        yield take(out);
      }
      for (const out of tail) {
        if (budget <= 0) return;
        yield take(out);
      }
    } finally {
      lines.close();
      stream.destroy();
    }
  }
  if (!opts.follow) return;
  let offset = size;
  let rest = '';
  while (!signal?.aborted && budget > 0) {
    await sleep(FOLLOW_POLL_MS, signal);
    if (signal?.aborted) return;
    let now: number;
    try {
      now = (await stat(file)).size;
    } catch {
      continue;
    }
    if (now < offset) {
      offset = 0;
      rest = '';
    }
    if (now === offset) continue;
    const handle = await open(file, 'r');
    let text: string;
    try {
      const buf = Buffer.alloc(Math.min(now - offset, FOLLOW_CHUNK));
      const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
      offset += bytesRead;
      text = rest + buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const raw of lines) {
      const out = format(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
      if (out === undefined) continue;
      if (budget <= 0) return;
      yield take(out);
    }
  }
}
