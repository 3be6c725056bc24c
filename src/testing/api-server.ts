// A server for black-box tests of the API server: the real ApiServer over the registry's GenericStore
// and the memory backend, with a few small kinds, x509 authentication and an authorizer
// that denies one test user. Requests go over real HTTPS on an ephemeral loopback port.

import { X509Certificate } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { X509Authenticator } from '../auth/authn/x509.js';
import { UnionAuthenticator } from '../auth/authn/union.js';
import type { Authorizer } from '../auth/types.js';
import { createCA, issueCert, type TestCert } from './pki.js';
import type { KubeObject } from '../apimachinery/types.js';
import { buildResourceTable, type DefaultResourceTable } from '../registry/index.js';
import { gizmoDefinition, namespaceDefinition, widgetDefinition, widgetStrategy } from './registry.js';
import type { ResourceDefinition, RESTStore } from '../rest/index.js';
import { MemoryStorage } from '../storage/index.js';
import { ApiServer, type ApiServerConfig } from '../server/apiserver.js';
import { versionInfo } from '../server/version.js';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { CustomResourceRegistrar, crdResource } from '../registry/customresource/index.js';
import { LoopbackClient } from '../server/loopback.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** A core-group ConfigMap look-alike with its own table columns (NAME DATA AGE). */
export function configMapDefinition(): ResourceDefinition {
  const strategy = widgetStrategy({
    hasStatus: false,
    defaults() {},
    validate: () => [],
    validateUpdate: () => [],
    prepareForCreate() {},
    prepareForUpdate() {},
    selectableFields: () => ({}),
    fieldSelectorKeys: [],
    scale: undefined,
    table: {
      columns: [
        { name: 'Name', type: 'string', format: 'name', description: 'name', priority: 0 },
        { name: 'Data', type: 'integer', format: '', description: 'data', priority: 0 },
        { name: 'Age', type: 'string', format: '', description: 'age', priority: 0 },
      ],
      cells: (obj) => [obj.metadata?.name ?? '', Object.keys((obj.data as Record<string, unknown>) ?? {}).length, '0s'],
    },
  });
  return {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    singularName: 'configmap',
    namespaced: true,
    shortNames: ['cm'],
    categories: [],
    verbs: ALL_VERBS,
    subresources: [],
    preferred: true,
    storage: { group: '', resource: 'configmaps', version: 'v1' },
    strategy,
  };
}

export function testDefinitions(): ResourceDefinition[] {
  const widgets = widgetDefinition();
  widgets.shortNames = ['wd'];
  return [configMapDefinition(), namespaceDefinition(), widgets, gizmoDefinition()];
}

/** A virtual, create-only resource (like a review API), to check routing of partial stores. */
export function reviewStore(): RESTStore {
  return {
    definition: {
      group: 'reviews.testing',
      version: 'v1',
      resource: 'echoes',
      kind: 'Echo',
      singularName: 'echo',
      namespaced: false,
      shortNames: [],
      categories: [],
      verbs: ['create'],
      subresources: [],
      preferred: true,
    },
    async create(_ctx, _ns, obj) {
      return { ...obj, status: { echoed: true } };
    },
  };
}

export const DENIED_USER = 'denied-user';

export const testAuthorizer: Authorizer = {
  async authorize(a) {
    return a.user.username === DENIED_USER ? { decision: 'NoOpinion', reason: '' } : { decision: 'Allow', reason: '' };
  },
};

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): KubeObject & Record<string, unknown>;
}

export interface RequestOptions {
  body?: string | Buffer | unknown;
  headers?: Record<string, string>;
  /** Client identity: the admin certificate (default), none, or the denied user's. */
  as?: 'admin' | 'anonymous' | 'denied';
}

export interface TestServer {
  server: ApiServer;
  table: DefaultResourceTable;
  storage: MemoryStorage;
  port: number;
  caPem: string;
  admin: { cert: string; key: string };
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Opens a streaming request and hands back the response chunks as they arrive. */
  stream(path: string, onLine: (line: string) => void, headers?: Record<string, string>): { done: Promise<number>; close(): void };
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Serve CustomResourceDefinitions and the custom resources of the established ones. */
  customResources?: boolean;
}

export async function startTestServer(overrides: Partial<ApiServerConfig> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const ca = await createCA('test-ca');
  const serving = await issueCert(ca, 'apiserver', { usage: 'server', dnsNames: ['localhost'], ips: ['127.0.0.1'] });
  const adminCert = await issueCert(ca, 'admin', { orgs: ['system:masters'] });
  const deniedCert = await issueCert(ca, DENIED_USER);
  const storage = new MemoryStorage();
  const crds = crdResource();
  const extra = options.customResources ? builtinResourceDefinitions().filter((d) => d.group === crds.group && d.resource === crds.resource) : [];
  const table = buildResourceTable([...testDefinitions(), ...extra], storage);
  table.add(reviewStore());
  const customResources = options.customResources
    ? new CustomResourceRegistrar({ client: new LoopbackClient(table, { username: 'admin', groups: ['system:masters'] }), table, storage })
    : undefined;
  await customResources?.start();
  const server = new ApiServer({
    table,
    authenticator: new UnionAuthenticator([new X509Authenticator(() => [new X509Certificate(ca.certPem)])], false),
    authorizer: testAuthorizer,
    version: versionInfo('0.1.0'),
    tls: { cert: serving.certPem, key: serving.keyPem, clientCA: ca.certPem },
    ...overrides,
  });
  const port = await server.listen(0, '127.0.0.1');
  const caPem = ca.certPem;
  const admin = pair(adminCert);
  const denied = pair(deniedCert);

  const identity = (as: RequestOptions['as']): { cert?: string; key?: string } => (as === 'anonymous' ? {} : as === 'denied' ? denied : admin);

  const request = (method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...(opts.headers ?? {}) };
      let payload: Buffer | undefined;
      if (opts.body !== undefined) {
        payload = Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = payload.byteLength;
      }
      const req = httpsRequest(
        { host: '127.0.0.1', port, method, path, headers, ca: caPem, ...identity(opts.as), agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body,
              json: () => JSON.parse(body) as KubeObject & Record<string, unknown>,
            });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

  const stream = (path: string, onLine: (line: string) => void, headers: Record<string, string> = {}): { done: Promise<number>; close(): void } => {
    let close = (): void => {};
    const done = new Promise<number>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, method: 'GET', path, headers, ca: caPem, ...admin, agent: false }, (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            onLine(buf.slice(0, nl));
            buf = buf.slice(nl + 1);
          }
        });
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('close', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(res.statusCode ?? 0));
      });
      close = () => req.destroy();
      req.on('error', (e) => (String(e).includes('socket hang up') || String(e).includes('aborted') ? resolve(0) : reject(e)));
      req.end();
    });
    return { done, close };
  };

  return {
    server,
    table,
    storage,
    port,
    caPem,
    admin,
    request,
    stream,
    async close() {
      await server.shutdown({ drainTimeoutMs: 2000 });
      await customResources?.stop();
      await table.stop();
      await storage.close();
    },
  };
}

function pair(c: TestCert): { cert: string; key: string } {
  return { cert: c.certPem, key: c.keyPem };
}
