// A throwaway single-member etcd for tests: loopback ports, a temporary data directory,
// killed and removed on stop.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';

export const etcdInstallHint =
  'the etcd server is not on PATH: install it (Debian: apt-get install etcd-server; CI installs it) to test the etcd storage backend';

/** Whether an `etcd` binary runs (found through the PATH of `env`). */
export function etcdInstalled(env: NodeJS.ProcessEnv = process.env): boolean {
  const probe = spawnSync('etcd', ['--version'], { stdio: 'ignore', timeout: 10_000, env });
  return probe.error === undefined && probe.status === 0;
}

/**
 * The `skip` option for etcd tests: run when etcd is installed; under CI a missing etcd runs
 * the tests anyway so they fail with the install hint; elsewhere they skip, saying why.
 */
export function etcdSkip(env: NodeJS.ProcessEnv = process.env): false | string {
  if (etcdInstalled(env)) return false;
  return env.CI ? false : etcdInstallHint;
}

export interface EtcdServer {
  clientUrl: string;
  /** PEM bytes for the client when etcd serves TLS. */
  tls?: { ca: Uint8Array; cert: Uint8Array; key: Uint8Array };
  /** Kills etcd and starts it again on the same ports and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A loopback port nothing listens on (at the time of asking). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** PEM files for an etcd that serves TLS and asks clients for a certificate. */
export interface EtcdTlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
  client: { ca: Uint8Array; cert: Uint8Array; key: Uint8Array };
}

/** Starts etcd and resolves once it answers; fails with the install hint when etcd is missing. */
export async function startEtcd(opts: { timeoutMs?: number; tls?: EtcdTlsFiles } = {}): Promise<EtcdServer> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const tls = opts.tls;
  if (!etcdInstalled()) throw new Error(etcdInstallHint);
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const clientUrl = `${tls !== undefined ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name', 'test',
    '--data-dir', dataDir,
    '--listen-client-urls', clientUrl,
    '--advertise-client-urls', clientUrl,
    '--listen-peer-urls', peerUrl,
    '--initial-advertise-peer-urls', peerUrl,
    '--initial-cluster', `test=${peerUrl}`,
    '--initial-cluster-state', 'new',
    '--logger', 'zap',
    '--log-level', 'error',
    ...(tls !== undefined ? ['--cert-file', tls.certFile, '--key-file', tls.keyFile, '--trusted-ca-file', tls.caFile, '--client-cert-auth'] : []),
  ];
  let child: ChildProcess | undefined;
  let exited = true;
  let stderr = '';

  const kill = async (): Promise<void> => {
    const running = child;
    if (running === undefined || exited) return;
    const gone = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await gone;
  };

  const launch = async (): Promise<void> => {
    stderr = '';
    exited = false;
    const started = spawn('etcd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    started.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    started.once('exit', () => {
      exited = true;
    });
    const deadline = Date.now() + timeoutMs;
    const client = new Etcd3({
      hosts: clientUrl,
      dialTimeout: 1000,
      ...(tls !== undefined
        ? { credentials: { rootCertificate: Buffer.from(tls.client.ca), certChain: Buffer.from(tls.client.cert), privateKey: Buffer.from(tls.client.key) } }
        : {}),
    });
    try {
      for (;;) {
        if (exited) throw new Error(`etcd exited at start: ${stderr}`);
        try {
          await client.kv.range({ key: Buffer.from('/'), count_only: true });
          return;
        } catch (err) {
          if (Date.now() > deadline) throw new Error(`etcd did not answer in ${timeoutMs} ms: ${String(err)} ${stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    } finally {
      await client.close();
    }
  };

  const stop = async (): Promise<void> => {
    await kill();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    clientUrl,
    ...(tls !== undefined ? { tls: tls.client } : {}),
    async restart() {
      await kill();
      await launch();
    },
    stop,
  };
}
