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
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
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

/** Starts etcd and resolves once it answers; fails with the install hint when etcd is missing. */
export async function startEtcd(timeoutMs = 20_000): Promise<EtcdServer> {
  if (!etcdInstalled()) throw new Error(etcdInstallHint);
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const child: ChildProcess = spawn(
    'etcd',
    [
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
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const stop = async (): Promise<void> => {
    if (!exited) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  const client = new Etcd3({ hosts: clientUrl, dialTimeout: 1000 });
  try {
    for (;;) {
      if (exited) throw new Error(`etcd exited at start: ${stderr}`);
      try {
        await client.kv.range({ key: Buffer.from('/'), count_only: true });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`etcd did not answer in ${timeoutMs} ms: ${String(err)} ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (err) {
    await stop();
    throw err;
  } finally {
    await client.close();
  }
  return { clientUrl, stop };
}
