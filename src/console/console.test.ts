// The console's server side end to end: the static files at /ui/ (answered without
// credentials, strict headers, hostile paths), and the login token printed at start (the
// admin identity, refused when wrong or expired, never in a log or an audit event). Both
// flavors, one after the other (the flavor is process-wide).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { FakeClock } from '../apimachinery/clock.js';
import { parseFlags } from '../apimachinery/flags.js';
import { allFlagDefinitions } from '../cli/flags.js';
import { startServer, type RunningServer } from '../cli/server.js';
import { group, setFlavor, type Flavor } from '../naming/index.js';
import { assetKey, CONTENT_SECURITY_POLICY } from './handler.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const SECRET = 'this-file-is-outside-the-bundle';

/** A request with the path sent exactly as given (no normalization of `..`). */
function send(url: string, method: string, path: string, opts: { token?: string; cert?: { cert: string; key: string }; headers?: Record<string, string> } = {}): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        rejectUnauthorized: false,
        headers: { ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
        ...(opts.cert ?? {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('asset paths', () => {
  it('names only plain files of the bundle', () => {
    assert.equal(assetKey('/ui/'), 'index.html');
    assert.equal(assetKey('/ui/app.js'), 'app.js');
    assert.equal(assetKey('/ui/fonts/a.woff2'), 'fonts/a.woff2');
    for (const bad of ['/ui/../x', '/ui/./app.js', '/ui/%2e%2e/x', '/ui/a%00.js', '/ui/a\0', '/ui/..\\..\\x', '/ui/a\\b', '/ui//app.js', '/ui/.hidden', '/ui/a/../b', '/ui/app.js/', `/ui/${'a'.repeat(300)}`, '/uiapp.js']) {
      assert.equal(assetKey(bad), undefined, bad);
    }
  });
});

for (const flavor of ['orch', 'kubernetes'] as Flavor[]) {
  describe(`console server side (${flavor} flavor)`, () => {
    let dir: string;
    let running: RunningServer;
    let token: string;
    const clock = new FakeClock(new Date('2026-01-01T00:00:00Z'));
    const logs: string[] = [];
    const TTL_MS = 60_000;

    before(async () => {
      setFlavor(flavor);
      dir = mkdtempSync(join(tmpdir(), 'orch-console-'));
      const bundle = join(dir, 'bundle');
      mkdirSync(join(bundle, 'css'), { recursive: true });
      writeFileSync(join(bundle, 'index.html'), '<!doctype html><title>console</title><script type="module" src="app.js"></script>');
      writeFileSync(join(bundle, 'app.js'), 'export {};');
      writeFileSync(join(bundle, 'css', 'app.css'), 'body{}');
      writeFileSync(join(bundle, 'notes.unknown'), 'not a served type');
      writeFileSync(join(dir, 'secret.txt'), SECRET);
      symlinkSync(join(dir, 'secret.txt'), join(bundle, 'linked.txt'));
      writeFileSync(join(dir, 'policy.yaml'), `apiVersion: ${group('audit')}/v1\nkind: Policy\nrules:\n- level: RequestResponse\n`);
      const flags = parseFlags(
        [
          `--data-dir=${join(dir, 'data')}`,
          '--storage-backend=memory',
          '--secure-port=0',
          `--compat=${flavor}`,
          '--console=true',
          `--console-token-ttl=${TTL_MS}ms`,
          `--audit-policy-file=${join(dir, 'policy.yaml')}`,
          `--audit-log-path=${join(dir, 'audit.log')}`,
          '--audit-log-mode=blocking',
        ],
        allFlagDefinitions,
      );
      running = await startServer(flags, { log: (l) => logs.push(l), clock, consoleBundleDir: bundle });
      await running.started;
      const url = running.console?.url ?? '';
      assert.match(url, /^https:\/\/127\.0\.0\.1:\d+\/ui\/#token=[A-Za-z0-9_-]{43}$/);
      token = url.slice(url.indexOf('#token=') + '#token='.length);
    });
    after(async () => {
      await running?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const secureHeaders = (a: Answer, what: string): void => {
      assert.equal(a.headers['content-security-policy'], CONTENT_SECURITY_POLICY, `${what}: CSP`);
      assert.equal(a.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`);
      assert.equal(a.headers['referrer-policy'], 'no-referrer', `${what}: referrer policy`);
      assert.equal(a.headers['set-cookie'], undefined, `${what}: no cookie`);
    };

    it('serves the bundle without credentials, with its types and strict headers', async () => {
      const index = await send(running.url, 'GET', '/ui/');
      assert.equal(index.status, 200);
      assert.equal(index.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(index.headers['cache-control'], 'no-cache');
      assert.match(index.text, /<title>console<\/title>/);
      secureHeaders(index, '/ui/');
      const js = await send(running.url, 'GET', '/ui/app.js?v=1');
      assert.equal(js.status, 200);
      assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
      const css = await send(running.url, 'GET', '/ui/css/app.css');
      assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
      const head = await send(running.url, 'HEAD', '/ui/app.js');
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      const again = await send(running.url, 'GET', '/ui/app.js', { headers: { 'If-None-Match': String(js.headers.etag) } });
      assert.equal(again.status, 304);
      secureHeaders(again, '304');
      const bare = await send(running.url, 'GET', '/ui');
      assert.equal(bare.status, 301);
      assert.equal(bare.headers.location, '/ui/');
      secureHeaders(bare, 'redirect');
    });

    it('refuses other methods and answers hostile paths 404, never reading outside the bundle', async () => {
      const post = await send(running.url, 'POST', '/ui/app.js');
      assert.equal(post.status, 405);
      assert.equal(post.headers.allow, 'GET, HEAD');
      secureHeaders(post, 'POST');
      const hostile = [
        '/ui/../secret.txt',
        '/ui/..%2fsecret.txt',
        '/ui/%2e%2e/secret.txt',
        '/ui/%2E%2E%2Fsecret.txt',
        '/ui/..%5csecret.txt',
        '/ui/..\\secret.txt',
        '/ui/app.js%00.html',
        '/ui/linked.txt',
        '/ui/notes.unknown',
        '/ui/css/../../secret.txt',
        '/ui/.%2e/.%2e/secret.txt',
        '/ui/%252e%252e/secret.txt',
        `/ui/${'a/'.repeat(2000)}app.js`,
        `/ui/${'x'.repeat(60_000)}`,
        '/ui/__proto__',
        '/ui/constructor',
      ];
      for (const path of hostile) {
        const a = await send(running.url, 'GET', path);
        assert.ok(a.status === 404 || a.status === 431 || a.status === 414, `${path.slice(0, 60)}: ${a.status}`);
        assert.ok(!a.text.includes(SECRET), `${path.slice(0, 60)} read outside the bundle`);
        if (a.status === 404) secureHeaders(a, path.slice(0, 60));
      }
    });

    it('accepts the printed token as the admin identity, as a bearer token only', async () => {
      const secrets = await send(running.url, 'GET', '/api/v1/namespaces/default/secrets', { token });
      assert.equal(secrets.status, 200, secrets.text);
      assert.equal(secrets.headers['set-cookie'], undefined);
    });

    it('refuses a wrong token with a 401 Status', async () => {
      for (const t of ['wrong', `${token}x`, token.slice(1)]) {
        const a = await send(running.url, 'GET', '/api/v1/namespaces', { token: t });
        assert.equal(a.status, 401);
        const status = JSON.parse(a.text) as { kind?: string; reason?: string; code?: number };
        assert.deepEqual([status.kind, status.reason, status.code], ['Status', 'Unauthorized', 401]);
      }
    });

    it('keeps the token out of the logs and the audit log', async () => {
      // The requests above ran with the token; the audit log recorded them (blocking mode).
      const audit = readFileSync(join(dir, 'audit.log'), 'utf8');
      assert.match(audit, /\/api\/v1\/namespaces\/default\/secrets/, 'the requests were audited');
      assert.ok(!audit.includes(token), 'the audit log holds the token');
      assert.ok(!logs.join('\n').includes(token), 'a log line holds the token');
    });

    it('does not take the token from a query string', async () => {
      // (After the audit check: the request URI, token included, is audited as sent.)
      const query = await send(running.url, 'GET', `/api/v1/namespaces/default/secrets?access_token=${token}&token=${token}`);
      assert.equal(query.status, 403, 'anonymous without the header');
    });

    it('expires the token after its lifetime on the server clock', async () => {
      const before = await send(running.url, 'GET', '/api/v1/namespaces', { token });
      assert.equal(before.status, 200);
      clock.step(TTL_MS);
      const expired = await send(running.url, 'GET', '/api/v1/namespaces', { token });
      assert.equal(expired.status, 401);
      assert.equal((JSON.parse(expired.text) as { kind?: string }).kind, 'Status');
    });
  });
}

describe('a server without the console', () => {
  let dir: string;
  let running: RunningServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-console-off-'));
    running = await startServer(parseFlags([`--data-dir=${dir}`, '--storage-backend=memory', '--secure-port=0', '--console=false'], allFlagDefinitions), { log: () => {} });
    await running.started;
  });
  after(async () => {
    await running?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 404 at /ui/ and prints no login URL', async () => {
    assert.equal(running.console, undefined);
    const cert = { cert: readFileSync(running.pki.adminCert, 'utf8'), key: readFileSync(running.pki.adminKey, 'utf8') };
    const a = await send(running.url, 'GET', '/ui/', { cert });
    assert.equal(a.status, 404);
    assert.equal(a.headers['content-security-policy'], undefined);
  });

  it('refuses a console token lifetime that is not positive', async () => {
    await assert.rejects(
      startServer(parseFlags([`--data-dir=${join(dir, 'ttl')}`, '--storage-backend=memory', '--secure-port=0', '--console=true', '--console-token-ttl=0s'], allFlagDefinitions), { log: () => {} }),
      /--console-token-ttl: must be a positive duration/,
    );
  });

  it('refuses to start with the console on but no bundle', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    await assert.rejects(
      startServer(parseFlags([`--data-dir=${join(dir, 'other')}`, '--storage-backend=memory', '--secure-port=0', '--console=true'], allFlagDefinitions), { log: () => {}, consoleBundleDir: empty }),
      /--console: .* has no index\.html/,
    );
  });
});

describe('the program', () => {
  it('prints the console URL with a token in the fragment, good for the admin, and logs no token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-console-cli-'));
    const entry = fileURLToPath(new URL('../cli/apiserver.js', import.meta.url));
    const child = spawn(process.execPath, [entry, '--storage-backend=memory', '--secure-port=0', `--data-dir=${dir}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /^console: (.*)$/m.exec(out);
          if (m) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`exited ${code} before printing the console URL: ${err}`)));
      });
      const m = /^(https:\/\/127\.0\.0\.1:\d+)\/ui\/#token=([A-Za-z0-9_-]{43})$/.exec(line);
      assert.ok(m, line);
      const [, url, token] = m as unknown as [string, string, string];
      const index = await send(url, 'GET', '/ui/');
      assert.equal(index.status, 200);
      assert.match(index.text, /<script type="module" src="app.js"><\/script>/);
      const admin = await send(url, 'GET', '/api/v1/namespaces/kube-system/secrets', { token });
      assert.notEqual(admin.status, 401);
      assert.notEqual(admin.status, 403);
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.ok(!err.includes(token), 'a log line holds the token');
      assert.equal(out.split(token).length, 2, 'the token is printed once, in the URL');
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
