// Screenshots of the web console's main views for the README (docs/console-*.png):
// `npm run build && npm run console:screenshots`. A server with three simulated nodes, a
// Deployment and an edited ConfigMap, looked at through headless Chromium.
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { startApiServer, type ApiServerHandle } from '../src/lib/index.js';
import { findChromium } from '../src/testing/chromium.js';

const docs = fileURLToPath(new URL('../../docs/', import.meta.url));

function api(srv: ApiServerHandle, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Record<string, unknown>> {
  const u = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: u.hostname, port: u.port, method, path, ca: srv.ca, cert: srv.certPem, key: srv.keyPem, headers: { Accept: 'application/json', ...(body !== undefined ? { 'Content-Type': contentType } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => ((res.statusCode ?? 0) < 300 ? resolve(JSON.parse(text) as Record<string, unknown>) : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`))));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function shot(page: Page, hash: string, selector: string, file: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  await page.waitForSelector(selector, { state: 'attached' });
  await page.screenshot({ path: `${docs}${file}` });
  process.stdout.write(`wrote docs/${file}\n`);
}

const executable = findChromium();
if (!executable) throw new Error('Chromium is not installed (apt-get install chromium)');
const srv = await startApiServer({ console: true, simulatedNodes: 3 });
const browser = await chromium.launch({ executablePath: executable, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
try {
  const cm = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config', namespace: 'default' }, data });
  await api(srv, 'POST', '/api/v1/namespaces/default/configmaps', cm({ mode: 'blue', replicas: '2' }));
  await api(srv, 'PATCH', '/api/v1/namespaces/default/configmaps/app-config?fieldManager=orch-console&force=true', cm({ mode: 'green', replicas: '2', region: 'eu' }), 'application/apply-patch+yaml');
  for (const name of ['feature-flags', 'limits']) {
    await api(srv, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { enabled: 'true' } });
  }
  await api(srv, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
  });
  await srv.settled({ timeoutMs: 30_000 });
  const sets = (await api(srv, 'GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dweb')) as { items?: Array<{ metadata?: { name?: string } }> };
  const rs = sets.items?.[0]?.metadata?.name ?? '';

  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 760 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(new URL('/ui/', srv.url).href);
  await page.waitForSelector('#login');
  await page.screenshot({ path: `${docs}console-login.png` });
  process.stdout.write('wrote docs/console-login.png\n');
  await page.goto(srv.consoleUrl ?? '');
  await page.waitForSelector('#resources');
  await shot(page, '#/list/_/v1/configmaps', '#list tr[data-name="app-config"]', 'console-list.png');
  await shot(page, '#/obj/_/v1/configmaps/default/app-config/yaml', '#yaml', 'console-yaml.png');
  await shot(page, '#/obj/_/v1/configmaps/default/app-config/history', '#timeline, #history-unavailable', 'console-history.png');
  await page.evaluate(`location.hash = '#/obj/apps/v1/replicasets/default/${rs}/relations'`);
  await page.locator('#panel-relations p', { hasText: /dependent/ }).waitFor();
  await page.screenshot({ path: `${docs}console-relations.png` });
  process.stdout.write('wrote docs/console-relations.png\n');
  await shot(page, '#/nodes', '#node-map .pod', 'console-nodes.png');
} finally {
  await browser.close();
  await srv.stop();
}
