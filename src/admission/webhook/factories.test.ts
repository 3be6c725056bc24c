// The factories plug into buildAdmissionChain by name, each with its own configuration entry.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { parseFlags } from '../../apimachinery/flags.js';
import { LoopbackClient } from '../../server/loopback.js';
import { setFlavor } from '../../naming/index.js';
import { buildResourceTable } from '../../registry/index.js';
import { MemoryStorage } from '../../storage/index.js';
import { admissionFlagDefinitions, buildAdmissionChain } from '../index.js';
import { webhookPlugin, webhookPluginFactories } from './index.js';

setFlavor('orch');

test('buildAdmissionChain runs both webhook plugins; a bad kubeConfigFile is refused', async () => {
  const storage = new MemoryStorage();
  const table = buildResourceTable(builtinResourceDefinitions(), storage);
  const client = new LoopbackClient(table, { username: 'admin', groups: ['system:masters'] });
  const dir = mkdtempSync(join(tmpdir(), 'webhook-admission-'));
  try {
    const flags = (extra: string[]) => parseFlags(['--enable-admission-plugins=MutatingAdmissionWebhook,ValidatingAdmissionWebhook', ...extra], admissionFlagDefinitions);
    const chain = buildAdmissionChain(flags([]), { client, plugins: webhookPluginFactories({ metricsRegistry: new Registry() }) });
    try {
      assert.ok(chain.enabled.includes('MutatingAdmissionWebhook'));
      assert.ok(chain.enabled.includes('ValidatingAdmissionWebhook'));
    } finally {
      await chain.stop();
    }

    // A relative kubeConfigFile is refused when the plugin is built, before it starts anything.
    assert.throws(
      () => webhookPlugin('validating', { client, config: { kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'relative.yaml' } }),
      (e: unknown) => e instanceof Error && e.message === 'kubeConfigFile "relative.yaml" must be an absolute file path',
    );
    const file = join(dir, 'missing.yaml');
    assert.throws(() => webhookPlugin('mutating', { client, config: { kubeConfigFile: file } }), /unable to read kubeConfigFile/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await table.stop();
    await storage.close();
  }
});
