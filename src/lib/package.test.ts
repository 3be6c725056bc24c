// The package as a user gets it: `npm pack`, then `npm install <tarball> @kubernetes/client-node`
// in an empty directory, then the library and the `orch-apiserver` bin from there. The
// registry (or npm's cache, with ORCH_PACK_OFFLINE=1) supplies the runtime dependencies.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const skip = process.env.ORCH_SKIP_PACK_TEST ? 'ORCH_SKIP_PACK_TEST is set' : !existsSync(join(ROOT, 'package.json')) ? 'not run from the source tree' : false;

const run = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });

test('npm pack installs in an empty directory and works as a library and as a bin', { skip, timeout: 600_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'orch-pack-'));
  try {
    // The build is the test runner's; only the declarations are made here (prepack's second step),
    // so that no JavaScript file other tests are loading is rewritten under them.
    run('npx', ['tsc', '-p', 'tsconfig.pack.json'], ROOT);
    run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], ROOT);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote a tarball');
    const listing = run('tar', ['-tzf', join(work, tarball)], work).split('\n');
    assert.ok(listing.includes('package/dist/src/lib/index.js'));
    assert.ok(listing.includes('package/dist/src/lib/index.d.ts'));
    assert.ok(listing.includes('package/dist/src/cli/apiserver.js'));
    assert.ok(listing.includes('package/src/schema/catalog.json'));
    assert.ok(listing.includes('package/src/apis/surface.json'));
    assert.ok(!listing.some((f) => f.includes('/bench/') || f.startsWith('package/dist/src/testing/') || f.endsWith('.test.js') || f.includes('/examples/')), 'no tests, benchmarks or examples');

    const app = join(work, 'app');
    run('mkdir', ['-p', app], work);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', type: 'module', private: true }));
    const offline = process.env.ORCH_PACK_OFFLINE ? ['--offline'] : ['--prefer-offline'];
    run('npm', ['install', '--no-audit', '--no-fund', ...offline, join(work, tarball), '@kubernetes/client-node'], app);
    writeFileSync(
      join(app, 'smoke.test.mjs'),
      `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KubeConfig, CoreV1Api } from '@kubernetes/client-node';
import { startApiServer } from 'orch';
test('list namespaces', async () => {
  const server = await startApiServer();
  try {
    const core = server.kubeConfig(KubeConfig).makeApiClient(CoreV1Api);
    const names = (await core.listNamespace()).items.map((n) => n.metadata.name);
    assert.ok(names.includes('default'));
  } finally {
    await server.stop();
  }
});
`,
    );
    run('node', ['--test', 'smoke.test.mjs'], app);
    assert.match(run('npx', ['--no-install', 'orch-apiserver', '--version'], app), /^v\d/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
