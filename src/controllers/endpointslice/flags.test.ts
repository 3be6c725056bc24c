// The endpoint controllers' tuning flags as the server and orch-controller-manager parse them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFlags } from '../../apimachinery/flags.js';
import { controllerFlagDefinitions, controllerManagerFlags } from '../../cli/flags.js';

const parse = (argv: string[]): ReturnType<typeof controllerManagerFlags> => controllerManagerFlags(parseFlags(argv, controllerFlagDefinitions));

test('the endpoint controllers take their flags; defaults are left to the controllers', () => {
  const s = parse([
    '--concurrent-endpoint-syncs=2',
    '--concurrent-service-endpoint-syncs=3',
    '--max-endpoints-per-slice=7',
    '--mirroring-concurrent-service-endpoint-syncs=4',
    '--mirroring-max-endpoints-per-subset=9',
  ]);
  assert.deepEqual(
    [s.options.concurrentEndpointSyncs, s.options.concurrentServiceEndpointSyncs, s.options.maxEndpointsPerSlice, s.options.mirroringConcurrentServiceEndpointSyncs, s.options.mirroringMaxEndpointsPerSubset],
    [2, 3, 7, 4, 9],
  );
  assert.equal(parse([]).options.maxEndpointsPerSlice, undefined);
});

test('out-of-range values are refused, naming the flag', () => {
  assert.throws(() => parse(['--max-endpoints-per-slice=1001']), /--max-endpoints-per-slice/);
  assert.throws(() => parse(['--max-endpoints-per-slice=0']), /--max-endpoints-per-slice/);
  assert.throws(() => parse(['--mirroring-max-endpoints-per-subset=5000']), /--mirroring-max-endpoints-per-subset/);
  assert.throws(() => parse(['--concurrent-endpoint-syncs=-1']), /--concurrent-endpoint-syncs/);
});
