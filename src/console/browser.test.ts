// The console in a real browser (headless Chromium, Debian's package, driven by
// playwright-core), against the whole server in both flavors: log in from the printed URL,
// list ConfigMaps, see one created through the API appear live, edit one through the YAML
// editor (server-side apply) and see a conflict, see its history, and log in as a limited
// ServiceAccount that is refused Secrets with the server's Forbidden message.
// In CI (CI=true) a missing Chromium fails; elsewhere the test is skipped, saying why.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startApiServer, type ApiServerHandle } from '../lib/index.js';
import { group, type Flavor } from '../naming/index.js';
import { findChromium } from '../testing/chromium.js';
import { eventually } from '../testing/wait.js';

const executable = findChromium();
const inCI = process.env.CI === 'true';
const skip = executable || inCI ? false : 'Chromium is not installed (apt-get install chromium); the console browser test needs it';
const TIMEOUT = 15_000;

type Json = Record<string, unknown>;

/** An API request as the admin (client certificate). */
function api(srv: ApiServerHandle, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; json: Json }> {
  const u = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: u.hostname, port: u.port, method, path, ca: srv.ca, cert: srv.certPem, key: srv.keyPem, headers: { Accept: 'application/json', ...(body !== undefined ? { 'Content-Type': contentType } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as Json) : {} }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  });
}

async function must(srv: ApiServerHandle, method: string, path: string, body?: unknown, contentType?: string): Promise<Json> {
  const r = await api(srv, method, path, body, contentType);
  assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

function configMap(name: string, data: Record<string, string>, namespace = 'default'): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

describe('the console in a browser', { skip }, () => {
  let browser: Browser;
  before(async () => {
    if (!executable) throw new Error('CI=true and Chromium is not installed: apt-get install chromium');
    browser = await chromium.launch({ executablePath: executable, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });
  after(async () => {
    await browser?.close();
  });

  for (const flavor of ['kubernetes', 'orch'] as Flavor[]) {
    describe(`${flavor} flavor`, () => {
      let srv: ApiServerHandle;
      let context: BrowserContext;
      let page: Page;
      const violations: string[] = [];

      before(async () => {
        srv = await startApiServer({ console: true, flavor, simulatedNodes: 2 });
        await must(srv, 'POST', '/api/v1/namespaces/default/configmaps', configMap('first', { key: 'value1' }));
        context = await browser.newContext({ ignoreHTTPSErrors: true });
        page = await context.newPage();
        page.setDefaultTimeout(TIMEOUT);
        // A Content Security Policy violation or a script error shows in the browser's console.
        // (The browser also reports each refused request, such as the expected 409 and 403, as an error.)
        page.on('console', (m) => {
          if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded with a status of')) violations.push(m.text());
        });
        page.on('pageerror', (e) => violations.push(e.message));
      });
      after(async () => {
        await context?.close();
        await srv?.stop();
      });

      it('logs in from the printed URL and takes the token out of the address bar', async () => {
        assert.ok(srv.consoleUrl, 'the server prints a console URL');
        await page.goto(srv.consoleUrl);
        await page.waitForSelector('#resources a[data-resource="configmaps"]');
        assert.ok(!page.url().includes('token='), `the token stays in the URL: ${page.url()}`);
        const stored = (await page.evaluate('sessionStorage.getItem("orch-console-token")')) as string | null;
        assert.ok(stored && srv.consoleUrl.endsWith(stored), 'the token is kept in session storage');
        assert.deepEqual(await context.cookies(), [], 'no cookie is set');
      });

      it('lists ConfigMaps and shows one created through the API live', async () => {
        await page.click('#resources a[data-resource="configmaps"]');
        await page.waitForSelector('#list tr[data-name="first"]');
        await page.waitForSelector('#watch-status.live');
        const header = await page.textContent('#list thead');
        assert.match(header ?? '', /Name/i);
        await must(srv, 'POST', '/api/v1/namespaces/default/configmaps', configMap('live', { a: '1' }));
        await page.waitForSelector('#list tr[data-name="live"]');
        await must(srv, 'DELETE', '/api/v1/namespaces/default/configmaps/live');
        await page.waitForSelector('#list tr[data-name="live"]', { state: 'detached' });
      });

      it('edits one through the YAML editor, and shows a conflict with the owner of a field', async () => {
        await page.click('#list tr[data-name="first"] a');
        await page.waitForSelector('#yaml');
        // A new field: no other manager owns it, the apply goes through.
        const text = await page.inputValue('#yaml');
        assert.match(text, /key: value1/);
        await page.fill('#yaml', text.replace('key: value1', 'key: value1\n  added: "yes"'));
        await page.click('#apply');
        await page.waitForSelector('#apply-result .ok');
        let cm = await must(srv, 'GET', '/api/v1/namespaces/default/configmaps/first');
        assert.deepEqual(cm.data, { key: 'value1', added: 'yes' });
        const managers = ((cm.metadata as { managedFields?: Array<{ manager?: string; operation?: string }> }).managedFields ?? []).map((m) => `${m.manager}/${m.operation}`);
        assert.ok(managers.includes('orch-console/Apply'), managers.join(', '));
        // A field the creator owns, changed: the server's conflict, shown with its causes, then forced.
        const edited = (await page.inputValue('#yaml')).replace('key: value1', 'key: value2');
        await page.fill('#yaml', edited);
        await page.click('#apply');
        await page.waitForSelector('#apply-result .error');
        const message = (await page.textContent('#apply-result .error')) ?? '';
        assert.match(message, /conflict/i);
        assert.match(message, /\.data\.key/);
        await page.click('#force-apply');
        await page.waitForSelector('#apply-result .ok');
        cm = await must(srv, 'GET', '/api/v1/namespaces/default/configmaps/first');
        assert.equal((cm.data as Json).key, 'value2');
      });

      it("shows the object's history and a diff", async () => {
        const groups = ((await must(srv, 'GET', '/apis')).groups as Array<{ name: string }>).map((g) => g.name);
        assert.ok(groups.some((g) => g.startsWith('history.')), 'the server serves the object history');
        await page.click('#tab-history');
        await page.waitForSelector('#timeline li');
        const entries = await page.locator('#timeline > li').count();
        assert.ok(entries >= 3, `create and two applies: ${entries} revisions`);
        const diff = (await page.textContent('#timeline > li:first-child pre.diff')) ?? '';
        assert.match(diff, /- {3}key: value1/);
        assert.match(diff, /\+ {3}key: value2/);
        const summary = (await page.textContent('#timeline > li:first-child summary')) ?? '';
        assert.match(summary, /Apply/);
        assert.match(summary, /orch-console/);
      });

      it('shows owners and dependents, and events', async () => {
        await page.click('#tab-relations');
        await page.waitForSelector('#dependents', { state: 'attached' });
        await page.locator('#panel-relations p', { hasText: /dependent/ }).waitFor();
        assert.match((await page.textContent('#panel-relations')) ?? '', /No owners\./);
        await page.click('#tab-events');
        await page.waitForSelector('#panel-events p, #panel-events table');
      });

      it('lists custom resources once their definition is served', async () => {
        const crdGroup = 'widgets.example.com';
        await must(srv, 'POST', `/apis/${group('apiextensions')}/v1/customresourcedefinitions`, {
          apiVersion: `${group('apiextensions')}/v1`,
          kind: 'CustomResourceDefinition',
          metadata: { name: `gadgets.${crdGroup}` },
          spec: {
            group: crdGroup,
            scope: 'Namespaced',
            names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
            versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
          },
        });
        // Served once discovery lists it; the console reads discovery again on a reload.
        await eventually(async () => (await api(srv, 'GET', `/apis/${crdGroup}/v1`)).status === 200, 'the custom resource served', TIMEOUT);
        await must(srv, 'POST', `/apis/${crdGroup}/v1/namespaces/default/gadgets`, { apiVersion: `${crdGroup}/v1`, kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 3 } });
        await page.reload();
        await page.click(`#resources details[data-group="${crdGroup}"] summary`);
        await page.click(`#resources a[data-resource="gadgets.${crdGroup}"]`);
        await page.waitForSelector('#list tr[data-name="g1"]');
      });

      it('maps the simulated nodes and the pods bound to them', async () => {
        await must(srv, 'POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } });
        await page.click('#nodes-link');
        await page.waitForSelector('#node-map');
        assert.equal(await page.locator('#node-map section.node').count(), 2);
        // Bound by the scheduler, then Running by the node agent: reopened until it shows.
        await eventually(
          async () => {
            if ((await page.locator('#node-map li.pod.phase-running', { hasText: 'default/web' }).count()) === 1) return true;
            await srv.settled();
            await page.evaluate('location.hash = "#/"');
            await page.click('#nodes-link');
            await page.waitForSelector('#node-map');
            return false;
          },
          'the pod Running on a node in the map',
          TIMEOUT,
        );
      });

      it('logs a limited user in with a pasted token and shows what RBAC refuses', async () => {
        const rbac = `${group('rbac.authorization')}/v1`;
        await must(srv, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
        await must(srv, 'POST', '/api/v1/namespaces/team/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'viewer' } });
        await must(srv, 'POST', `/apis/${group('rbac.authorization')}/v1/namespaces/team/roles`, {
          apiVersion: rbac,
          kind: 'Role',
          metadata: { name: 'configmaps' },
          rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
        });
        await must(srv, 'POST', `/apis/${group('rbac.authorization')}/v1/namespaces/team/rolebindings`, {
          apiVersion: rbac,
          kind: 'RoleBinding',
          metadata: { name: 'viewer' },
          roleRef: { apiGroup: group('rbac.authorization'), kind: 'Role', name: 'configmaps' },
          subjects: [{ kind: 'ServiceAccount', name: 'viewer', namespace: 'team' }],
        });
        await must(srv, 'POST', '/api/v1/namespaces/team/configmaps', configMap('settings', { mode: 'a' }, 'team'));
        const review = await must(srv, 'POST', '/api/v1/namespaces/team/serviceaccounts/viewer/token', { apiVersion: `${group('authentication')}/v1`, kind: 'TokenRequest', spec: {} });
        const token = (review.status as { token: string }).token;

        const limited = await browser.newContext({ ignoreHTTPSErrors: true });
        try {
          const p = await limited.newPage();
          p.setDefaultTimeout(TIMEOUT);
          // This one reads the legacy discovery documents (per group-version) instead of the aggregated one.
          await p.goto(new URL('/ui/?legacy-discovery', srv.url).href);
          await p.waitForSelector('#login');
          await p.fill('#token', token);
          await p.click('#login button[type=submit]');
          await p.waitForSelector('#namespace-input');
          assert.match((await p.textContent('#main')) ?? '', /\(legacy discovery\)/);
          await p.fill('#namespace-input', 'team');
          await p.press('#namespace-input', 'Enter');
          // (The page's own Content Security Policy forbids the string evaluation waitForFunction uses.)
          await p.locator('#namespace option[value="team"][selected]').waitFor({ state: 'attached' });
          await p.evaluate('location.hash = "#/list/_/v1/configmaps"');
          await p.waitForSelector('#list tr[data-name="settings"]');
          await p.evaluate('location.hash = "#/list/_/v1/secrets"');
          await p.waitForSelector('#main .error');
          const message = (await p.textContent('#main .error')) ?? '';
          assert.equal(message, 'secrets is forbidden: User "system:serviceaccount:team:viewer" cannot list resource "secrets" in API group "" in the namespace "team"');
          assert.deepEqual(await limited.cookies(), []);
        } finally {
          await limited.close();
        }
      });

      it('ran without script errors or policy violations', () => {
        assert.deepEqual(violations, []);
      });
    });
  }
});
