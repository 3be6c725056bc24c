import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultFeatureGate, FeatureGate, FeatureGateError, KNOWN_FEATURES, parseFeatureGates } from './features.js';

test('feature gates take the 1.27 defaults, explicit settings and the AllAlpha/AllBeta switches', () => {
  const gate = defaultFeatureGate();
  assert.equal(gate.enabled('APIPriorityAndFairness'), true);
  assert.equal(gate.enabled('ValidatingAdmissionPolicy'), false);
  assert.throws(() => gate.enabled('NoSuchGate'), /not known/);
  const own = new FeatureGate({
    A: { default: false, stage: 'ALPHA' },
    B: { default: true, stage: 'BETA' },
    C: { default: true, stage: 'BETA' },
    G: { default: true, stage: 'GA', lockToDefault: true },
  });
  own.set('AllAlpha=true,AllBeta=false,C=true');
  assert.deepEqual(['A', 'B', 'C', 'G'].map((n) => own.enabled(n)), [true, false, true, true], 'explicit settings win, GA gates ignore AllBeta');
});

test('bad values refuse the whole flag and change nothing', () => {
  const gate = defaultFeatureGate();
  assert.throws(() => gate.set('APIPriorityAndFairness=false,Bogus=true'), (e: unknown) => e instanceof FeatureGateError && e.message === 'unrecognized feature gate: Bogus');
  assert.equal(gate.enabled('APIPriorityAndFairness'), true);
  assert.throws(() => gate.set('ServerSideApply=false'), /^FeatureGateError: cannot set feature gate ServerSideApply to false, feature is locked to true$/);
  assert.throws(() => gate.set('APIPriorityAndFairness'), /missing bool value for APIPriorityAndFairness/);
  assert.throws(() => gate.set('APIPriorityAndFairness=yes'), /invalid value of APIPriorityAndFairness=yes/);
  assert.deepEqual(gate.set('WatchBookmark=true'), ['Setting GA feature gate WatchBookmark=true. It will be removed in a future release.']);
  assert.deepEqual(parseFeatureGates(' A=1 , ,B=F'), [['A', true], ['B', false]]);
});

test('gates are per instance, and all() reports AllAlpha and AllBeta as kube-apiserver does', () => {
  const a = new FeatureGate({ X: { default: false, stage: 'ALPHA' } });
  const b = new FeatureGate({ X: { default: false, stage: 'ALPHA' } });
  a.set('X=true');
  assert.equal(a.enabled('X'), true);
  assert.equal(b.enabled('X'), false);
  assert.deepEqual(a.all(), [
    { name: 'AllAlpha', stage: 'ALPHA', enabled: false },
    { name: 'AllBeta', stage: 'BETA', enabled: false },
    { name: 'X', stage: 'ALPHA', enabled: true },
  ]);
});

test('the table: every gate kube-apiserver 1.27 knows, locks only on GA gates, a disposition for each', () => {
  const names = Object.keys(KNOWN_FEATURES);
  // 118 of k8s.io/kubernetes, 25 more of k8s.io/apiserver, 4 of k8s.io/component-base.
  assert.equal(names.length, 147);
  for (const n of names) {
    const s = KNOWN_FEATURES[n]!;
    if (s.lockToDefault) assert.equal(s.stage, 'GA', n);
    assert.ok(s.orch === 'acts' || s.orch === 'elsewhere' || s.orch === 'refused', n);
  }
  // Spot checks against pkg/features at v1.27.16.
  assert.deepEqual(KNOWN_FEATURES['CronJobTimeZone'], { default: true, stage: 'GA', lockToDefault: true, orch: 'acts' });
  assert.deepEqual(KNOWN_FEATURES['APISelfSubjectReview'], { default: true, stage: 'BETA', orch: 'acts' });
  assert.equal(KNOWN_FEATURES['WindowsHostNetwork']?.default, true, 'an alpha gate on by default');
  assert.equal(KNOWN_FEATURES['ExecProbeTimeout']?.lockToDefault, undefined, 'a GA gate that is not locked');
  assert.equal(KNOWN_FEATURES['CustomCPUCFSQuotaPeriod']?.stage, 'ALPHA', 'the gate name, not its Go constant');
});

test('a gate this server implements at its default only is refused the other way, named', () => {
  const gate = defaultFeatureGate();
  assert.deepEqual(gate.set('ProcMountType=false,StorageVersionHash=true'), [], 'defaults are accepted');
  assert.throws(
    () => gate.set('ProcMountType=true'),
    (e: unknown) => e instanceof FeatureGateError && e.message === 'feature gate ProcMountType=true is not supported by this server: it implements ProcMountType only at its default (false)',
  );
  assert.throws(() => gate.set('StorageVersionHash=false'), /feature gate StorageVersionHash=false is not supported/);
  assert.equal(gate.enabled('ProcMountType'), false);
  // AllAlpha and AllBeta turn such gates too: refused, naming every one.
  assert.throws(() => gate.set('AllAlpha=true'), (e: unknown) => e instanceof FeatureGateError && /at their defaults\): .*InPlacePodVerticalScaling=true.*WatchList=true/.test(e.message));
  assert.throws(() => gate.set('AllBeta=false'), (e: unknown) => e instanceof FeatureGateError && /PodSchedulingReadiness=false/.test(e.message));
  // Unless the gates are held at their defaults by name.
  const held = defaultFeatureGate();
  const refusedAlpha = Object.keys(KNOWN_FEATURES).filter((n) => KNOWN_FEATURES[n]!.stage === 'ALPHA' && KNOWN_FEATURES[n]!.orch === 'refused');
  held.set(['AllAlpha=true', ...refusedAlpha.map((n) => `${n}=false`)].join(','));
  assert.equal(held.enabled('ValidatingAdmissionPolicy'), true);
  assert.equal(held.enabled('WatchList'), false);
});

test('gates that act elsewhere are accepted both ways; acting gates switch', () => {
  const gate = defaultFeatureGate();
  assert.deepEqual(gate.set('NodeSwap=true,KubeletTracing=false,APISelfSubjectReview=false'), []);
  assert.equal(gate.enabled('NodeSwap'), true);
  assert.equal(gate.enabled('APISelfSubjectReview'), false);
  assert.deepEqual(gate.set('CronJobTimeZone=true'), ['Setting GA feature gate CronJobTimeZone=true. It will be removed in a future release.']);
  assert.throws(() => gate.set('CronJobTimeZone=false'), /^FeatureGateError: cannot set feature gate CronJobTimeZone to false, feature is locked to true$/);
  assert.deepEqual(gate.set('ExecProbeTimeout=false'), ['Setting GA feature gate ExecProbeTimeout=false. It will be removed in a future release.']);
});
