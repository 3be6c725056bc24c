// The load generator of `npm run bench`, in a process of its own so that its CPU is not the
// server's nor the bench's: keep-alive TLS sockets, each with one request in flight (no
// pipelining), request bytes built once (or, for creates, a prebuilt head and body around a
// changing name), and responses framed by reading only the status line, Content-Length or
// chunk sizes. Started as `node load-client.js`, it reads its job (a `LoadJob`, JSON) from
// stdin, connects every socket, prints `connected`, waits for a `go` line, runs for the
// job's seconds and prints one `LoadReport` line of JSON.
import tls from 'node:tls';
import { createInterface } from 'node:readline';

export interface LoadJob {
  host: string;
  port: number;
  caPem: string;
  /** The client certificate, or a bearer token in `headers`. */
  certPem?: string;
  keyPem?: string;
  connections: number;
  seconds: number;
  method: string;
  path: string;
  /** Extra request headers (Authorization, ...). */
  headers?: Record<string, string>;
  /**
   * A body whose every `{{n}}` becomes a number unique to this process's request (prefixed by
   * `namePrefix`), so that creates do not conflict. No body: a GET.
   */
  body?: string;
  namePrefix?: string;
}

/** Latency histogram buckets: 10 µs wide up to 2 s, then one overflow bucket. */
export const BUCKET_US = 10;
export const BUCKETS = 200_000;

export interface LoadReport {
  requests: number;
  errors: number;
  /** Status codes other than 2xx, first few. */
  errorSamples: string[];
  elapsedMs: number;
  /** process.cpuUsage() over the run, µs. */
  cpuUs: number;
  /** Sparse histogram: bucket index to count. */
  histogram: Record<string, number>;
}

const CRLF2 = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = Buffer.from('\r\ncontent-length:');
const CHUNKED = Buffer.from('chunked');

/** Byte-wise lower case of a header block's ASCII, to find header names whatever their case. */
function lowerAscii(b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(b.length);
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    out[i] = c >= 65 && c <= 90 ? c + 32 : c;
  }
  return out;
}

/**
 * How many bytes of `buf` the response at its start occupies, or -1 while incomplete.
 * Handles Content-Length and chunked bodies (without trailers), nothing more.
 */
export function responseLength(buf: Buffer): { length: number; status: number } | undefined {
  const headEnd = buf.indexOf(CRLF2);
  if (headEnd < 0) return undefined;
  const status = (buf[9]! - 48) * 100 + (buf[10]! - 48) * 10 + (buf[11]! - 48);
  const head = lowerAscii(buf.subarray(0, headEnd + 2));
  const bodyStart = headEnd + 4;
  const cl = head.indexOf(CONTENT_LENGTH);
  if (cl >= 0) {
    const eol = head.indexOf(13, cl + 2);
    const n = Number(head.toString('latin1', cl + CONTENT_LENGTH.length, eol).trim());
    return bodyStart + n <= buf.length ? { length: bodyStart + n, status } : undefined;
  }
  if (head.indexOf(CHUNKED) < 0) return { length: bodyStart, status };
  // Chunked: size line, data, CRLF; the last chunk has size 0 followed by CRLF CRLF.
  let at = bodyStart;
  for (;;) {
    const eol = buf.indexOf(13, at);
    if (eol < 0 || eol + 1 >= buf.length) return undefined;
    const size = parseInt(buf.toString('latin1', at, eol), 16);
    if (size === 0) return eol + 4 <= buf.length ? { length: eol + 4, status } : undefined;
    at = eol + 2 + size + 2;
    if (at > buf.length) return undefined;
  }
}

function requestBuilder(job: LoadJob): () => Buffer {
  const headerLines = Object.entries({ Host: `${job.host}:${job.port}`, Accept: 'application/json', ...job.headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  if (job.body === undefined) {
    const bytes = Buffer.from(`${job.method} ${job.path} HTTP/1.1\r\n${headerLines}\r\n`);
    return () => bytes;
  }
  const head = `${job.method} ${job.path} HTTP/1.1\r\n${headerLines}Content-Type: application/json\r\nContent-Length: `;
  const parts = job.body.split('{{n}}').map((p) => Buffer.from(p));
  const headBytes = Buffer.from(head);
  const prefix = job.namePrefix ?? '';
  let n = 0;
  return () => {
    const name = Buffer.from(`${prefix}${n++}`);
    const bodyLength = parts.reduce((sum, p) => sum + p.length, 0) + name.length * (parts.length - 1);
    const chunks: Buffer[] = [headBytes, Buffer.from(`${bodyLength}\r\n\r\n`)];
    parts.forEach((p, i) => {
      if (i > 0) chunks.push(name);
      chunks.push(p);
    });
    return Buffer.concat(chunks);
  };
}

async function run(job: LoadJob, waitForGo: () => Promise<void>): Promise<LoadReport> {
  const next = requestBuilder(job);
  const histogram = new Uint32Array(BUCKETS + 1);
  let requests = 0;
  let errors = 0;
  const errorSamples: string[] = [];
  const sockets = await Promise.all(
    Array.from(
      { length: job.connections },
      () =>
        new Promise<tls.TLSSocket>((resolve, reject) => {
          const s = tls.connect({ host: job.host, port: job.port, ca: job.caPem, cert: job.certPem, key: job.keyPem, servername: job.host === '127.0.0.1' ? undefined : job.host }, () => resolve(s));
          s.setNoDelay(true);
          s.once('error', reject);
        }),
    ),
  );
  process.stdout.write('connected\n');
  await waitForGo();
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const end = started + job.seconds * 1000;
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          let buf: Buffer = Buffer.alloc(0);
          let sentAt = 0;
          const send = (): void => {
            sentAt = performance.now();
            if (sentAt >= end) {
              socket.end();
              resolve();
              return;
            }
            socket.write(next());
          };
          socket.on('data', (chunk: Buffer) => {
            buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
            const r = responseLength(buf);
            if (r === undefined) return;
            const us = (performance.now() - sentAt) * 1000;
            histogram[Math.min(BUCKETS, Math.floor(us / BUCKET_US))]!++;
            requests++;
            if (r.status < 200 || r.status >= 300) {
              errors++;
              if (errorSamples.length < 3) errorSamples.push(buf.toString('utf8', 0, Math.min(r.length, 400)));
            }
            buf = buf.subarray(r.length);
            send();
          });
          socket.on('error', () => {
            errors++;
            resolve();
          });
          socket.on('close', () => resolve());
          send();
        }),
    ),
  );
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  const sparse: Record<string, number> = {};
  histogram.forEach((c, i) => {
    if (c) sparse[i] = c;
  });
  for (const s of sockets) s.destroy();
  return { requests, errors, errorSamples, elapsedMs, cpuUs: cpu.user + cpu.system, histogram: sparse };
}

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const first = await lines.next();
  const job = JSON.parse(String(first.value)) as LoadJob;
  const report = await run(job, async () => {
    await lines.next();
  });
  process.stdout.write(JSON.stringify(report) + '\n');
  process.exit(0);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  main().catch((err: unknown) => {
    process.stderr.write(`load client failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
