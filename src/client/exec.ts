// Credential plugins (`users[].user.exec`) as kubectl runs them: the plugin gets an
// ExecCredential in an environment variable, answers with one on standard output, and its
// token or client certificate is used until `expirationTimestamp`, or until the server
// answers 401 to it. Building the input and reading the answer are pure; running is the edge.
import { spawn } from 'node:child_process';
import { isPlainObject } from '../apimachinery/types.js';
import { execInfoEnv } from '../naming/index.js';
import type { ClientConfig, ExecConfig } from './kubeconfig.js';

/** What a plugin answered: a bearer token, or a certificate and key (PEM), or both. */
export interface ExecCredentials {
  token?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  /** Epoch milliseconds; none means valid until the process ends or a 401. */
  expiresAt?: number;
}

export class ExecCredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExecCredentialError';
  }
}

/** The ExecCredential the plugin is given, as JSON. */
export function execCredentialInput(exec: ExecConfig, config: ClientConfig, interactive: boolean): string {
  const spec: Record<string, unknown> = { interactive };
  if (exec.provideClusterInfo) {
    const cluster: Record<string, unknown> = { server: config.server };
    if (config.tlsServerName !== undefined) cluster['tls-server-name'] = config.tlsServerName;
    if (config.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;
    if (config.caPem !== undefined) cluster['certificate-authority-data'] = Buffer.from(config.caPem, 'utf8').toString('base64');
    if (exec.clusterConfig !== undefined) cluster.config = exec.clusterConfig;
    spec.cluster = cluster;
  }
  return JSON.stringify({ kind: 'ExecCredential', apiVersion: exec.apiVersion, spec });
}

/** Reads a plugin's standard output; throws ExecCredentialError for anything kubectl would refuse. */
export function parseExecCredential(stdout: string, apiVersion: string): ExecCredentials {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch (e) {
    throw new ExecCredentialError(`decoding stdout: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isPlainObject(doc)) throw new ExecCredentialError('decoding stdout: not a JSON object');
  if (doc.kind !== 'ExecCredential') throw new ExecCredentialError(`decoding stdout: kind ${JSON.stringify(doc.kind ?? '')} is not ExecCredential`);
  if (doc.apiVersion !== apiVersion) {
    const got = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
    throw new ExecCredentialError(`exec plugin is configured to use API version ${apiVersion}, plugin returned version ${got}`);
  }
  const status = doc.status;
  if (!isPlainObject(status)) throw new ExecCredentialError("exec plugin didn't return a status field");
  const text = (key: string): string => (typeof status[key] === 'string' ? (status[key] as string) : '');
  const token = text('token');
  const cert = text('clientCertificateData');
  const key = text('clientKeyData');
  if (token === '' && cert === '' && key === '') throw new ExecCredentialError("exec plugin didn't return a token or cert/key pair");
  if ((cert === '') !== (key === '')) throw new ExecCredentialError('exec plugin returned only certificate or key, not both');
  const creds: ExecCredentials = {};
  if (token !== '') creds.token = token;
  if (cert !== '') {
    creds.clientCertPem = cert;
    creds.clientKeyPem = key;
  }
  const expiry = status.expirationTimestamp;
  if (expiry !== undefined && expiry !== null) {
    const at = typeof expiry === 'string' ? Date.parse(expiry) : NaN;
    if (Number.isNaN(at)) throw new ExecCredentialError(`decoding stdout: expirationTimestamp ${JSON.stringify(expiry)} is not an RFC 3339 time`);
    creds.expiresAt = at;
  }
  return creds;
}

export interface ExecDeps {
  now(): number;
  /** Whether standard input is a terminal the plugin could prompt on. */
  stdinIsTerminal(): boolean;
}

const defaultDeps: ExecDeps = { now: Date.now, stdinIsTerminal: () => process.stdin.isTTY === true };

/** Runs one user's plugin when its credentials are missing or stale; one run at a time. */
export class ExecAuthenticator {
  private cached?: ExecCredentials;
  private running?: Promise<ExecCredentials>;

  constructor(
    private readonly exec: ExecConfig,
    private readonly config: ClientConfig,
    private readonly deps: ExecDeps = defaultDeps,
  ) {}

  /** Cached credentials, or fresh ones from the plugin once the cached ones expired. */
  credentials(): Promise<ExecCredentials> {
    const c = this.cached;
    if (c && (c.expiresAt === undefined || this.deps.now() <= c.expiresAt)) return Promise.resolve(c);
    this.running ??= this.run().then(
      (fresh) => {
        this.cached = fresh;
        this.running = undefined;
        return fresh;
      },
      (err: unknown) => {
        this.running = undefined;
        throw err;
      },
    );
    return this.running;
  }

  /** The server refused `used`: forget it unless another request already replaced it. */
  unauthorized(used: ExecCredentials): void {
    if (this.cached === used) this.cached = undefined;
  }

  private interactive(): boolean {
    switch (this.exec.interactiveMode) {
      case 'Never':
        return false;
      case 'IfAvailable':
        return this.deps.stdinIsTerminal();
      case 'Always':
        if (!this.deps.stdinIsTerminal()) throw new ExecCredentialError('exec plugin cannot support interactive mode: standard input is not a terminal');
        return true;
    }
  }

  private run(): Promise<ExecCredentials> {
    let interactive: boolean;
    try {
      interactive = this.interactive();
    } catch (e) {
      return Promise.reject(e);
    }
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const e of this.exec.env) env[e.name] = e.value;
    env[execInfoEnv()] = execCredentialInput(this.exec, this.config, interactive);
    const { command, args, apiVersion } = this.exec;
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'inherit'] });
      const out: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'EACCES') {
          const hint = this.exec.installHint ? `\n\n${this.exec.installHint}` : '';
          reject(new ExecCredentialError(`exec: executable ${command} not found${hint}`));
        } else {
          reject(new ExecCredentialError(`exec: ${err.message}`));
        }
      });
      child.on('close', (code: number | null) => {
        if (code !== 0) return reject(new ExecCredentialError(`exec: executable ${command} failed with exit code ${code ?? -1}`));
        try {
          resolve(parseExecCredential(Buffer.concat(out).toString('utf8'), apiVersion));
        } catch (e) {
          reject(e);
        }
      });
    });
  }
}
