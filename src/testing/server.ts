// The real server started in-process for auth's end-to-end tests: memory backend, a fresh
// data directory, an ephemeral loopback port, and client certificates from a test CA that
// --client-ca-file trusts. Requests go over real HTTPS.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../apimachinery/flags.js';
import { admissionFlagDefinitions } from '../admission/flags.js';
import { serverFlagDefinitions } from '../cli/flags.js';
import { startServer, type RunningServer } from '../cli/server.js';
import { authFlagDefinitions } from '../auth/flags.js';
import { auditFlagDefinitions } from '../audit/index.js';
import { createCA, issueCert, type TestCert } from './pki.js';

export interface Identity {
  cert?: TestCert;
  token?: string;
  headers?: Record<string, string | string[]>;
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Record<string, unknown>;
}

export interface AuthTestServer {
  url: string;
  dataDir: string;
  serverCA: string;
  clientCA: TestCert;
  admin: Identity;
  running: RunningServer;
  /** Everything the server logged. */
  logs: string[];
  user(cn: string, ...orgs: string[]): Promise<Identity>;
  request(method: string, path: string, who: Identity, body?: unknown): Promise<Response>;
  stop(): Promise<void>;
}

export async function startAuthTestServer(args: string[] = [], opts: { dataDir?: string; clientCA?: TestCert } = {}): Promise<AuthTestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'orch-auth-'));
  const clientCA = opts.clientCA ?? (await createCA('auth-test-client-ca'));
  const caFile = join(dataDir, 'test-client-ca.crt');
  writeFileSync(caFile, clientCA.certPem);
  const flags = parseFlags(
    ['--data-dir', dataDir, '--storage-backend=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--client-ca-file=${caFile}`, '--console=false', ...args],
    [...serverFlagDefinitions, ...authFlagDefinitions, ...admissionFlagDefinitions, ...auditFlagDefinitions],
  );
  const logs: string[] = [];
  const running = await startServer(flags, { log: (l) => logs.push(l) });
  await running.started;
  const serverCA = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
  const admin: Identity = { cert: await issueCert(clientCA, 'test-admin', { orgs: ['system:masters'] }) };

  const doRequest = (method: string, path: string, who: Identity, body?: unknown): Promise<Response> =>
    new Promise((resolve, reject) => {
      const url = new URL(path, running.url);
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const headers: Record<string, string | string[]> = { Accept: 'application/json', ...(who.headers ?? {}) };
      // A caller's own Content-Type (patch types) wins over the JSON default.
      if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
      if (who.token !== undefined) headers['Authorization'] = `Bearer ${who.token}`;
      const req = request(
        url,
        { method, headers, ca: serverCA, cert: who.cert?.certPem, key: who.cert?.keyPem, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: Record<string, unknown> = {};
            try {
              json = JSON.parse(text) as Record<string, unknown>;
            } catch {
              // not JSON
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

  return {
    url: running.url,
    dataDir,
    serverCA,
    clientCA,
    admin,
    running,
    logs,
    user: async (cn, ...orgs) => ({ cert: await issueCert(clientCA, cn, { orgs }) }),
    request: doRequest,
    async stop() {
      await running.stop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
