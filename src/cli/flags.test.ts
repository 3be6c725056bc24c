// kube-controller-manager's flags as the server and orch-controller-manager parse them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFlags } from '../apimachinery/flags.js';
import { controllerFlagDefinitions, controllerManagerFlags, nodeIpamFromFlags, serverFlagDefinitions } from './flags.js';

const parse = (argv: string[]): ReturnType<typeof controllerManagerFlags> => controllerManagerFlags(parseFlags(argv, controllerFlagDefinitions));

test('defaults: every on-by-default controller, leader election with 15s/10s/2s, the manager lease', () => {
  const s = parse([]);
  assert.deepEqual(s.controllers, ['*']);
  assert.deepEqual(s.options, {
    concurrentGCSyncs: 20,
    concurrentJobSyncs: 5,
    concurrentCronJobSyncs: 5,
    concurrentTTLSyncs: 5,
    concurrentDeploymentSyncs: 5,
    concurrentReplicaSetSyncs: 5,
    concurrentRCSyncs: 5,
    nodeMonitorGracePeriodMs: 40_000,
    nodeMonitorPeriodMs: 5_000,
    terminatedPodGCThreshold: 12_500,
    clusterSigningDurationSeconds: 365 * 24 * 3600,
  });
  assert.deepEqual(s.leaderElection, { name: 'kube-controller-manager', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  assert.ok(serverFlagDefinitions.some((d) => d.name === 'leader-elect'), 'the server takes the same flags');
});

test('the flags set the options, the selection and the election', () => {
  const s = parse([
    '--controllers=*,-namespace,bootstrapsigner',
    '--concurrent-gc-syncs=3',
    '--concurrent-job-syncs',
    '7',
    '--concurrent-cron-job-syncs=2',
    '--concurrent-ttl-after-finished-syncs=9',
    '--concurrent-deployment-syncs=4',
    '--concurrent-replicaset-syncs=6',
    '--concurrent-rc-syncs=8',
    '--node-monitor-grace-period=1m',
    '--node-monitor-period=2s',
    '--terminated-pod-gc-threshold=0',
    '--cluster-signing-duration=2h',
    '--cluster-signing-cert-file=/ca.crt',
    '--cluster-signing-key-file=/ca.key',
    '--leader-elect-lease-duration=30s',
    '--leader-elect-renew-deadline=20s',
    '--leader-elect-retry-period=1s',
    '--leader-elect-resource-name=mine',
    '--leader-elect-resource-namespace=ops',
  ]);
  assert.deepEqual(s.controllers, ['*', '-namespace', 'bootstrapsigner']);
  assert.deepEqual(s.options, {
    concurrentGCSyncs: 3,
    concurrentJobSyncs: 7,
    concurrentCronJobSyncs: 2,
    concurrentTTLSyncs: 9,
    concurrentDeploymentSyncs: 4,
    concurrentReplicaSetSyncs: 6,
    concurrentRCSyncs: 8,
    nodeMonitorGracePeriodMs: 60_000,
    nodeMonitorPeriodMs: 2_000,
    terminatedPodGCThreshold: 0,
    clusterSigningDurationSeconds: 7200,
    clusterSigningCertFile: '/ca.crt',
    clusterSigningKeyFile: '/ca.key',
  });
  assert.deepEqual(s.leaderElection, { name: 'mine', namespace: 'ops', leaseDurationMs: 30_000, renewDeadlineMs: 20_000, retryPeriodMs: 1_000 });
  assert.equal(parse(['--leader-elect=false']).leaderElection, false);
});

test('bad values are refused, naming the flag', () => {
  assert.throws(() => parse(['--controllers=*,bogus']), { message: '--controllers: "bogus" is not in the list of known controllers' });
  assert.throws(() => parse(['--concurrent-gc-syncs=0']), /--concurrent-gc-syncs: must be greater than zero/);
  assert.throws(() => parse(['--cluster-signing-cert-file=/ca.crt']), /must be given together/);
  assert.throws(() => parse(['--terminated-pod-gc-threshold=2147483648']), { message: '--terminated-pod-gc-threshold: value out of range: 2147483648' });
  assert.throws(() => parse(['--terminated-pod-gc-threshold=lots']), /invalid argument "lots" for "--terminated-pod-gc-threshold" flag: expected an integer/);
});

test('node CIDR allocation: off by default, the range allocator with kube\'s masks when on, bad combinations refused', () => {
  assert.equal(parse([]).nodeIpam, undefined);
  assert.equal(parse(['--cluster-cidr=10.244.0.0/16']).nodeIpam, undefined);
  assert.deepEqual(parse(['--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16,fd00:10:244::/56', '--node-cidr-mask-size-ipv6=72']).nodeIpam, {
    clusterCIDRs: ['10.244.0.0/16', 'fd00:10:244::/56'],
    nodeMaskSizes: [24, 72],
  });
  assert.throws(() => parse(['--allocate-node-cidrs']), /--cluster-cidr must be specified/);
  assert.throws(() => parse(['--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16', '--node-cidr-mask-size=12']), /mask size of cluster CIDR must be less than or equal/);
  assert.throws(() => parse(['--cluster-cidr=../8']), /invalid CIDR address/);
});

test('the server turns allocation on for simulated nodes unless told otherwise', () => {
  const flags = (argv: string[]) => parseFlags(argv, controllerFlagDefinitions);
  const simulated = { allocate: true, clusterCIDR: '10.128.0.0/9' };
  assert.deepEqual(nodeIpamFromFlags(flags([]), simulated), { clusterCIDRs: ['10.128.0.0/9'], nodeMaskSizes: [24] });
  assert.deepEqual(nodeIpamFromFlags(flags(['--cluster-cidr=10.200.0.0/16']), simulated), { clusterCIDRs: ['10.200.0.0/16'], nodeMaskSizes: [24] });
  assert.equal(nodeIpamFromFlags(flags(['--allocate-node-cidrs=false']), simulated), undefined);
  // Asked for explicitly, the cluster CIDR must be given, as kube asks.
  assert.throws(() => nodeIpamFromFlags(flags(['--allocate-node-cidrs=true']), simulated), /--cluster-cidr must be specified/);
});
