// Logs of simulated pods (KWOK's `Logs` and `ClusterLogs`): the file configured for the
// container, read as the kubelet reads a container's log (CRI lines `<time> <stream> <P|F>
// <text>`, or Docker's JSON lines; other lines as they are), with the log options applied.
// A container with no file configured has an empty log.

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ClusterLogs, LogSource, PodLogs } from './config.js';

export interface LogOptions {
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

/** The lines of `file` as the options select them, as text chunks; an unreadable file is an error. */
export async function* readLog(file: string, opts: LogOptions, nowMs: number): AsyncGenerator<string> {
  let since: number | undefined;
  if (opts.sinceSeconds !== undefined) since = nowMs - opts.sinceSeconds * 1000;
  if (opts.sinceTime !== undefined) {
    const t = Date.parse(opts.sinceTime);
    if (Number.isFinite(t) && (since === undefined || t > since)) since = t;
  }
  const stream = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  // tailLines keeps the last N lines; otherwise lines stream as they are read.
  const tail: string[] = [];
  const tailing = opts.tailLines !== undefined;
  let budget = opts.limitBytes ?? Infinity;
  try {
    for await (const raw of lines) {
      const line = parseLogLine(raw);
      if (since !== undefined && line.time !== undefined && Date.parse(line.time) < since) continue;
      const out = `${opts.timestamps && line.time ? `${line.time} ` : ''}${line.text}${line.partial ? '' : '\n'}`;
      if (tailing) {
        tail.push(out);
        if (tail.length > opts.tailLines!) tail.shift();
        continue;
      }
      if (budget <= 0) break;
      const chunk = Buffer.byteLength(out) > budget ? Buffer.from(out).subarray(0, budget).toString('utf8') : out;
      budget -= Buffer.byteLength(out);
      yield chunk;
    }
    for (const out of tail) {
      if (budget <= 0) break;
      const chunk = Buffer.byteLength(out) > budget ? Buffer.from(out).subarray(0, budget).toString('utf8') : out;
      budget -= Buffer.byteLength(out);
      yield chunk;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}
