// Black-box test harness: starts the real `orch-apiserver` entry point in a child process
// (memory backend, a fresh data directory, a free loopback port), waits until it is ready,
// and stops it with SIGTERM as a user would. Also runs kubectl with its own cache directory.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '../../src/client/http.js';
import { readKubeconfig } from '../../src/client/kubeconfig.js';
import { eventually as pollUntil } from '../../src/testing/wait.js';

/** The compiled entry point beside this compiled file (`<out>/src/cli/apiserver.js`). */
export const ENTRY_POINT = fileURLToPath(new URL('../../src/cli/apiserver.js', import.meta.url));

/** Why the black-box tests cannot run, or undefined when they can. */
export function serverUnavailable(): string | undefined {
  return existsSync(ENTRY_POINT) ? undefined : `the server entry point ${ENTRY_POINT} has not been built`;
}

export type Flavor = 'orch' | 'kubernetes';

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  kubeconfigPath: string;
  client: HttpClient;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
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

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

export async function startTestServer(opts: { flavor?: Flavor; args?: string[]; backend?: 'memory' | 'sqlite' } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-e2e-'));
  const port = await freePort();
  const args = [
    ENTRY_POINT,
    '--data-dir',
    dataDir,
    '--storage-backend',
    opts.backend ?? 'memory',
    '--bind-address',
    '127.0.0.1',
    '--secure-port',
    String(port),
    ...(opts.flavor === 'kubernetes' ? ['--compat', 'kubernetes'] : []),
    ...(opts.args ?? []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));

  const kubeconfigPath = join(dataDir, 'admin.kubeconfig');
  const deadline = Date.now() + 30_000;
  let client: HttpClient | undefined;
  try {
    while (!/Serving on /.test(output)) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the server did not start in time:\n${output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    client = new HttpClient(readKubeconfig(kubeconfigPath), { timeoutMs: 10_000 });
    for (;;) {
      const res = await client.request('GET', '/readyz').catch(() => undefined);
      if (res?.statusCode === 200) break;
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the server did not become ready in time:\n${output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } catch (err) {
    client?.close();
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const readyClient = client;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    dataDir,
    kubeconfigPath,
    client: readyClient,
    output: () => output,
    async stop() {
      readyClient.close();
      child.kill('SIGTERM');
      const code = await waitForExit(child, 15_000);
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

// ---------------------------------------------------------------------------------------
// kubectl

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The kubectl on PATH, or undefined. */
export function kubectlPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'kubectl'))) return join(dir, 'kubectl');
  }
  return undefined;
}

export class Kubectl {
  /** Each instance has its own discovery cache, so runs never share stale discovery. */
  readonly cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));

  constructor(
    private readonly binary: string,
    private readonly kubeconfigPath: string,
  ) {}

  private env(): NodeJS.ProcessEnv {
    return { ...process.env, KUBECACHEDIR: this.cacheDir, KUBECONFIG: this.kubeconfigPath, HOME: this.cacheDir };
  }

  run(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
    return new Promise((resolve) => {
      const child = execFile(
        this.binary,
        ['--kubeconfig', this.kubeconfigPath, ...args],
        { env: this.env(), timeout: opts.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (opts.input !== undefined) child.stdin!.end(opts.input);
      else child.stdin!.end();
    });
  }

  /** Runs a long-lived command (get --watch, wait); the caller reads and ends it. */
  spawn(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
    const child = spawn(this.binary, ['--kubeconfig', this.kubeconfigPath, ...args], { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }));
    return { child, output: () => out, exited };
  }

  dispose(): void {
    rmSync(this.cacheDir, { recursive: true, force: true });
  }
}

/** The shared polling helper, with the longer deadline a separate server process needs. */
export function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  return pollUntil(probe, what, timeoutMs);
}
