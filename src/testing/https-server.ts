// HTTPS servers the tests run for the server to call: an OIDC issuer and webhooks, each with
// a certificate from the test's own CA.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestCert } from './pki.js';

export type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

export interface TestHttpsServer {
  url: string;
  close(): Promise<void>;
}

export async function startHttpsServer(cert: TestCert, handler: Handler): Promise<TestHttpsServer> {
  const server: Server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** A kubeconfig-format webhook configuration pointing at `server`, trusting `ca`. */
export function webhookKubeconfig(server: string, ca: TestCert, client?: TestCert): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const user = client ? { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) } : {};
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'hook', cluster: { server, 'certificate-authority-data': b64(ca.certPem) } }],
    users: [{ name: 'apiserver', user }],
    contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'apiserver' } }],
    'current-context': 'hook',
  });
}
