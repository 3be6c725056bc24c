// The resource quota controller's tuning flags as the server and orch-controller-manager parse
// them (defaults are left to the controller).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFlags } from '../../apimachinery/flags.js';
import { controllerFlagDefinitions, controllerManagerFlags } from '../../cli/flags.js';

const parse = (argv: string[]): ReturnType<typeof controllerManagerFlags> => controllerManagerFlags(parseFlags(argv, controllerFlagDefinitions));

test('--resource-quota-sync-period and --concurrent-resource-quota-syncs reach the controller options', () => {
  const s = parse(['--resource-quota-sync-period=1m30s', '--concurrent-resource-quota-syncs=2']);
  assert.equal(s.options.resourceQuotaSyncPeriodMs, 90_000);
  assert.equal(s.options.concurrentResourceQuotaSyncs, 2);
  const d = parse([]);
  assert.equal(d.options.resourceQuotaSyncPeriodMs, undefined);
  assert.equal(d.options.concurrentResourceQuotaSyncs, undefined);
});

test('a period or worker count that is not positive is refused, naming the flag', () => {
  assert.throws(() => parse(['--resource-quota-sync-period=0s']), /--resource-quota-sync-period/);
  assert.throws(() => parse(['--resource-quota-sync-period=-5m']), /--resource-quota-sync-period/);
  assert.throws(() => parse(['--concurrent-resource-quota-syncs=0']), /--concurrent-resource-quota-syncs/);
  assert.throws(() => parse(['--concurrent-resource-quota-syncs=1.5']), /--concurrent-resource-quota-syncs/);
});
