// The workers flags of the statefulset and daemonset controllers, as the server and
// orch-controller-manager parse them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFlags } from '../../apimachinery/flags.js';
import { controllerFlagDefinitions, controllerManagerFlags, serverFlagDefinitions } from '../../cli/flags.js';

const parse = (argv: string[]): ReturnType<typeof controllerManagerFlags> => controllerManagerFlags(parseFlags(argv, controllerFlagDefinitions));

test('--concurrent-statefulset-syncs and --concurrent-daemonset-syncs set the workers; defaults 5 and 2 stay implicit', () => {
  const s = parse(['--concurrent-statefulset-syncs=3', '--concurrent-daemonset-syncs', '4']);
  assert.equal(s.options.concurrentStatefulSetSyncs, 3);
  assert.equal(s.options.concurrentDaemonSetSyncs, 4);
  const d = parse([]);
  assert.equal(d.options.concurrentStatefulSetSyncs, undefined);
  assert.equal(d.options.concurrentDaemonSetSyncs, undefined);
  for (const name of ['concurrent-statefulset-syncs', 'concurrent-daemonset-syncs']) {
    assert.ok(serverFlagDefinitions.some((f) => f.name === name), `the server takes --${name}`);
    assert.throws(() => parse([`--${name}=0`]), new RegExp(`--${name}: must be greater than zero`));
    assert.throws(() => parse([`--${name}=1.5`]), new RegExp(`--${name}`));
  }
});
