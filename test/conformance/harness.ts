// Black-box harness of the conformance tests: starts the built `orch-apiserver` entry point
// in a child process on a free loopback port, reads the admin kubeconfig it writes, and
// talks to it over HTTPS with the admin client certificate, as curl or a client library
// would. Self-contained on purpose: it depends on nothing but the entry point.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export const ENTRY_POINT = fileURLToPath(new URL('../../src/cli/apiserver.js', import.meta.url));

/** Why these tests cannot run here, or undefined when they can. */
export function serverUnavailable(): string | undefined {
  return existsSync(ENTRY_POINT) ? undefined : `the server entry point ${ENTRY_POINT} has not been built`;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: Record<string, unknown> | undefined;
}

interface Credentials {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

function field(obj: unknown, ...path: (string | number)[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

function credentialsOf(kubeconfigPath: string): Credentials {
  const doc: unknown = parseYaml(readFileSync(kubeconfigPath, 'utf8'));
  const b64 = (v: unknown): Buffer => Buffer.from(typeof v === 'string' ? v : '', 'base64');
  return {
    ca: b64(field(doc, 'clusters', 0, 'cluster', 'certificate-authority-data')),
    cert: b64(field(doc, 'users', 0, 'user', 'client-certificate-data')),
    key: b64(field(doc, 'users', 0, 'user', 'client-key-data')),
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** Ends the request after this long and returns what arrived (watches). */
  readForMs?: number;
  /** Ends the request as soon as this many lines (watch events) have arrived. */
  untilEvents?: number;
}

export class Server {
  private constructor(
    readonly port: number,
    readonly dataDir: string,
    readonly kubeconfigPath: string,
    private readonly child: ChildProcess,
    private readonly creds: Credentials,
    private readonly log: () => string,
  ) {}

  static async start(args: string[] = [], dataDir = mkdtempSync(join(tmpdir(), 'orch-conformance-'))): Promise<Server> {
    const port = await freePort();
    const child = spawn(process.execPath, [ENTRY_POINT, '--data-dir', dataDir, '--bind-address', '127.0.0.1', '--secure-port', String(port), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    const deadline = Date.now() + 30_000;
    while (!/Serving on /.test(output)) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`the server did not start:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const kubeconfigPath = join(dataDir, 'admin.kubeconfig');
    const server = new Server(port, dataDir, kubeconfigPath, child, credentialsOf(kubeconfigPath), () => output);
    for (;;) {
      const ready = await server.request('GET', '/readyz').catch(() => undefined);
      if (ready?.status === 200) break;
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`the server did not become ready:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return server;
  }

  output(): string {
    return this.log();
  }

  request(method: string, path: string, opts: RequestOptions = {}): Promise<Reply> {
    const payload =
      opts.body === undefined ? undefined : typeof opts.body === 'string' ? Buffer.from(opts.body) : Buffer.from(JSON.stringify(opts.body));
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path,
          ca: this.creds.ca,
          cert: this.creds.cert,
          key: this.creds.key,
          headers: {
            Accept: opts.accept ?? 'application/json',
            ...(payload ? { 'Content-Type': opts.contentType ?? 'application/json', 'Content-Length': payload.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let timer: NodeJS.Timeout | undefined;
          const finish = () => {
            if (timer) clearTimeout(timer);
            const text = Buffer.concat(chunks).toString('utf8');
            let json: Record<string, unknown> | undefined;
            try {
              const parsed: unknown = JSON.parse(text);
              if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          };
          const cut = (): void => {
            res.removeAllListeners('end');
            req.destroy();
            finish();
          };
          let lines = 0;
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            for (const byte of c) if (byte === 0x0a) lines++;
            if (opts.untilEvents !== undefined && lines >= opts.untilEvents) cut();
          });
          res.on('end', finish);
          res.on('error', finish);
          if (opts.readForMs !== undefined) timer = setTimeout(cut, opts.readForMs);
        },
      );
      req.on('error', (e) => {
        if (opts.readForMs === undefined) reject(e);
      });
      if (payload) req.write(payload);
      req.end();
    });
  }

  /** Like request, but fails unless the status is the expected one. */
  async expect(status: number, method: string, path: string, opts: RequestOptions = {}): Promise<Record<string, unknown>> {
    const reply = await this.request(method, path, opts);
    if (reply.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${reply.status}: ${reply.text}`);
    return reply.json ?? {};
  }

  /** SIGTERM and wait; `keepData` leaves the data directory for a restart. */
  async stop(keepData = false): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGTERM');
      const killer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    }
    if (!keepData) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** The lines of a watch stream as events. */
export function watchEvents(text: string): { type: string; object: Record<string, unknown> }[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string; object: Record<string, unknown> });
}

export function meta(obj: unknown): Record<string, unknown> {
  const m = field(obj, 'metadata');
  return m !== null && typeof m === 'object' ? (m as Record<string, unknown>) : {};
}

/** Calls `probe` until it answers something; fails naming `what` after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
