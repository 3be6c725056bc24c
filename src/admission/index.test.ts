import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import { FlagError, parseFlags } from '../apimachinery/flags.js';
import { LoopbackClient } from '../server/loopback.js';
import { group } from '../naming/index.js';
import { admissionFlagDefinitions, buildAdmissionChain, refuseMissingPlugins, selectPlugins } from './index.js';
import type { AdmissionAttributes } from './types.js';
import { memoryTable, type MemoryTable } from '../testing/memory-table.js';

const admin = { username: 'admin', groups: ['system:masters'] };
const tempDirs: string[] = [];
const tables: MemoryTable[] = [];
after(async () => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
  await Promise.all(tables.map((t) => t.close()));
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'admission-'));
  tempDirs.push(dir);
  return dir;
}
function client(): LoopbackClient {
  const served = memoryTable();
  tables.push(served);
  return new LoopbackClient(served.table, admin);
}

test('plugin selection: defaults, enabled, disabled, in run order; unknown names and overlaps fail', () => {
  const defaults = selectPlugins([], []);
  assert.equal(defaults[0], 'NamespaceLifecycle');
  assert.ok(defaults.includes('ValidatingAdmissionWebhook'));
  assert.ok(!defaults.includes('AlwaysDeny'));
  const custom = selectPlugins(['AlwaysDeny', 'NodeRestriction'], ['ResourceQuota']);
  assert.ok(custom.includes('NodeRestriction'));
  assert.ok(!custom.includes('ResourceQuota'));
  assert.equal(custom.at(-1), 'AlwaysDeny');
  assert.ok(custom.indexOf('NamespaceLifecycle') < custom.indexOf('NodeRestriction'));
  assert.throws(() => selectPlugins(['Bogus'], []), /^Error: enable-admission-plugins plugin "Bogus" is unknown$/);
  assert.throws(() => selectPlugins([], ['Bogus']), /disable-admission-plugins plugin "Bogus" is unknown/);
  assert.throws(() => selectPlugins(['AlwaysDeny'], ['AlwaysDeny']), /\[AlwaysDeny\] in enable-admission-plugins and disable-admission-plugins overlapped/);
});

test('a selected plugin without an implementation refuses the start', () => {
  assert.throws(
    () => refuseMissingPlugins(['NamespaceLifecycle', 'Imaginary'], { NamespaceLifecycle: () => ({ name: 'NamespaceLifecycle', handles: () => false }) }),
    /admission plugins not implemented by this server: Imaginary; disable them with --disable-admission-plugins/,
  );
  assert.doesNotThrow(() => refuseMissingPlugins(['NamespaceLifecycle'], { NamespaceLifecycle: () => ({ name: 'NamespaceLifecycle', handles: () => false }) }));
});

test('the built chain runs NamespaceLifecycle first and the plugins the flags name', async () => {
  // The webhooks wait for their configurations, which this small table does not serve.
  const flags = parseFlags(['--enable-admission-plugins=AlwaysDeny', '--disable-admission-plugins', 'ServiceAccount,MutatingAdmissionWebhook,ValidatingAdmissionWebhook'], admissionFlagDefinitions);
  const chain = buildAdmissionChain(flags, { client: client() });
  try {
    assert.equal(chain.enabled[0], 'NamespaceLifecycle');
    assert.equal(chain.enabled.at(-1), 'AlwaysDeny');
    assert.ok(chain.enabled.includes('LimitRanger'));
    assert.ok(!chain.enabled.includes('ServiceAccount'));
    assert.ok(!chain.enabled.includes('MutatingAdmissionWebhook'));
    const attrs: AdmissionAttributes = {
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'Node' },
      resource: { group: '', version: 'v1', resource: 'nodes' },
      subresource: '',
      namespace: '',
      name: '',
      object: { metadata: { name: 'n1' } },
      user: admin,
      dryRun: false,
      warnings: [],
    };
    await assert.rejects(chain.admit(attrs), (e: unknown) => e instanceof ApiError && e.code === 403 && e.message === 'nodes "n1" is forbidden: admission control is denying all modifications');
    await chain.validate(attrs);
  } finally {
    await chain.stop();
  }
});

test('plugins contributed by other modules run in their place with their configuration', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'quota.yaml'), 'limits: 3\n');
  const file = join(dir, 'admission.yaml');
  writeFileSync(
    file,
    [`apiVersion: ${group('apiserver.config')}/v1`, 'kind: AdmissionConfiguration', 'plugins:', '- name: ResourceQuota', '  path: quota.yaml', '- name: EventRateLimit', '  configuration: { qps: 5 }'].join('\n'),
  );
  const seen: unknown[] = [];
  const flags = parseFlags([`--admission-control-config-file=${file}`], admissionFlagDefinitions);
  const chain = buildAdmissionChain(flags, {
    client: client(),
    plugins: {
      ResourceQuota: ({ config }) => {
        seen.push(config);
        return { name: 'ResourceQuota', handles: () => true, async validate() { throw new ApiError(403, 'Forbidden', 'quota'); } };
      },
    },
  });
  try {
    assert.deepEqual(seen, [{ limits: 3 }]);
    assert.deepEqual(chain.configuration.get('EventRateLimit'), { qps: 5 });
    assert.equal(chain.enabled[0], 'NamespaceLifecycle');
    assert.equal(chain.enabled.at(-1), 'ResourceQuota');
  } finally {
    await chain.stop();
  }
});

test('bad flags and configuration files are flag errors', () => {
  assert.throws(() => buildAdmissionChain(parseFlags(['--enable-admission-plugins=Nope'], admissionFlagDefinitions), { client: client() }), FlagError);
  const dir = tempDir();
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, 'apiVersion: v1\nkind: Pod\n');
  assert.throws(() => buildAdmissionChain(parseFlags([`--admission-control-config-file=${file}`], admissionFlagDefinitions), { client: client() }), (e: unknown) => e instanceof FlagError && /expected kind AdmissionConfiguration/.test(e.message));
  assert.throws(() => buildAdmissionChain(parseFlags([`--admission-control-config-file=${join(dir, 'missing.yaml')}`], admissionFlagDefinitions), { client: client() }), FlagError);
});

test('the webhook plugins are built in and on by default, in their place before ResourceQuota', async () => {
  const chain = buildAdmissionChain(parseFlags([], admissionFlagDefinitions), { client: client() });
  try {
    const at = (n: string): number => chain.enabled.indexOf(n);
    assert.ok(at('MutatingAdmissionWebhook') > at('DefaultIngressClass'));
    assert.ok(at('ValidatingAdmissionWebhook') > at('MutatingAdmissionWebhook'));
    assert.ok(at('ResourceQuota') > at('ValidatingAdmissionWebhook'));
  } finally {
    await chain.stop();
  }
});
