// The bundled programs (dist/bundle, made by `npm run build` after tsc), which `npm start`
// and the package's bins run: what loads at start stays what it was unbundled (etcd, CEL
// and x509 only on use, the server after the store has begun opening), and the parts that
// find files next to their module (the SQLite and YAML workers, the schema catalog and API surface data, the
// lazily required CEL packages, the x509 chunk) work from the bundle's folder.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';

const BUNDLE = fileURLToPath(new URL('../../bundle/', import.meta.url));
const entry = join(BUNDLE, 'apiserver.js');
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The files and packages a bundle file loads before its code runs: static imports, followed through the bundle. */
function staticGraph(file: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (name: string): void => {
    if (files.has(name)) return;
    files.add(name);
    const text = readFileSync(join(BUNDLE, name), 'utf8');
    // `import ... from "x"` and `import "x"` at the start of a line; `import("x")` is dynamic and not matched.
    for (const m of text.matchAll(/^(?:import|export)\s(?:[^;'"()]*?\sfrom\s)?["']([^"']+)["']/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('./')) visit(spec.slice(2));
      else if (!spec.startsWith('node:')) packages.add(spec);
    }
  };
  visit(file);
  return { files, packages };
}

describe('the bundle', () => {
  it('was built beside the compiled sources', () => {
    for (const f of ['apiserver.js', 'controller-manager.js', 'scheduler.js', 'server.js', 'sqlite-worker.js', 'yaml-worker.js']) {
      assert.ok(existsSync(join(BUNDLE, f)), `dist/bundle/${f} (npm run build makes it)`);
    }
  });

  it('loads etcd3, CEL, x509 and the server itself only when they are used', () => {
    const start = staticGraph('apiserver.js');
    assert.ok(!start.files.has('server.js'), 'the server loads after the store has begun opening');
    const server = staticGraph('server.js');
    for (const graph of [start, server]) {
      for (const p of graph.packages) {
        assert.ok(!/^(etcd3|@bufbuild\/|@peculiar\/)/.test(p), `${p} is imported at start`);
      }
    }
    // What the entry point loads before it opens the store: the store's own code, not the
    // flags' table (which imports most of the server).
    const startBytes = [...start.files].reduce((n, f) => n + readFileSync(join(BUNDLE, f)).byteLength, 0);
    assert.ok(startBytes < 100_000, `the entry point loads ${startBytes} bytes before it opens the store`);
    assert.ok(staticGraph('sqlite-worker.js').packages.has('better-sqlite3'), 'the native module stays a package');
    assert.ok(!server.packages.has('better-sqlite3'), 'only the storage worker loads the native module');
  });
});

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}

function call(kubeconfig: string, method: string, path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; body: string }> {
  const kc = parse(readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
  const b = (s: string): Buffer => Buffer.from(s, 'base64');
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, kc.clusters[0]!.cluster.server),
      {
        method,
        ca: b(kc.clusters[0]!.cluster['certificate-authority-data']),
        cert: b(kc.users[0]!.user['client-certificate-data']),
        key: b(kc.users[0]!.user['client-key-data']),
        agent: false,
        headers: body === undefined ? {} : { 'content-type': contentType },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: not reached`);
}

interface Running {
  child: ChildProcess;
  exit: Promise<number | null>;
  stderr: () => string;
}

/** With the stock Kubernetes group names, which the requests below use. */
function run(dataDir: string): Running {
  const child = spawn(process.execPath, [entry, '--data-dir', dataDir, '--compat', 'kubernetes', '--bind-address', '127.0.0.1', '--secure-port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return { child, exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))), stderr: () => err };
}

describe('the bundled orch-apiserver', () => {
  it('prints its version, as does the bundled orch-controller-manager', async () => {
    for (const program of [entry, join(BUNDLE, 'controller-manager.js')]) {
      const child = spawn(process.execPath, [program, '--version'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      assert.equal(await new Promise((r) => child.on('exit', r)), 0);
      assert.match(out, /^v\d/);
    }
  });

  it('serves from SQLite, reads large YAML on its workers, checks CEL rules, and restarts from its store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'orch-bundle-test-'));
    dirs.push(dataDir);
    const kubeconfig = join(dataDir, 'admin.kubeconfig');
    let server = run(dataDir);
    try {
      // The first start issues the certificates (the x509 chunk) and opens the store on its worker.
      await until('readyz 200', async () => existsSync(kubeconfig) && (await call(kubeconfig, 'GET', '/readyz')).status === 200);

      // Above the YAML pool's threshold, so the document is read on a worker.
      const big = 'x'.repeat(40 * 1024);
      const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: default\ndata:\n  big: ${big}\n`;
      const created = await call(kubeconfig, 'POST', '/api/v1/namespaces/default/configmaps', yaml, 'application/yaml');
      assert.equal(created.status, 201, created.body);

      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: {
                      type: 'object',
                      properties: { size: { type: 'integer' } },
                      'x-kubernetes-validations': [{ rule: 'self.size < 10', message: 'size must be below ten' }],
                    },
                  },
                },
              },
            },
          ],
        },
      };
      const made = await call(kubeconfig, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(crd));
      assert.equal(made.status, 201, made.body);
      await until('widgets served', async () => (await call(kubeconfig, 'GET', '/apis/example.com/v1/namespaces/default/widgets')).status === 200);
      const widget = (size: number): string => JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: `w${size}` }, spec: { size } });
      const refused = await call(kubeconfig, 'POST', '/apis/example.com/v1/namespaces/default/widgets', widget(12));
      assert.equal(refused.status, 422, refused.body);
      assert.match(refused.body, /size must be below ten/);
      assert.equal((await call(kubeconfig, 'POST', '/apis/example.com/v1/namespaces/default/widgets', widget(3))).status, 201);

      server.child.kill('SIGTERM');
      assert.equal(await server.exit, 0, server.stderr());

      // A restart opens the existing store early, on its worker, and serves what was written.
      server = run(dataDir);
      await until('readyz 200 after restart', async () => (await call(kubeconfig, 'GET', '/readyz')).status === 200);
      const got = await call(kubeconfig, 'GET', '/api/v1/namespaces/default/configmaps/big');
      assert.equal(got.status, 200, got.body);
      assert.equal((JSON.parse(got.body) as { data: { big: string } }).data.big, big);
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await server.exit, 0, server.stderr());
    }
  });
});
