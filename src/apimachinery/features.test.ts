import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultFeatureGate, FeatureGate, FeatureGateError, parseFeatureGates } from './features.js';

test('feature gates take the 1.27 defaults, explicit settings and the AllAlpha/AllBeta switches', () => {
  const gate = defaultFeatureGate();
  assert.equal(gate.enabled('APIPriorityAndFairness'), true);
  assert.equal(gate.enabled('ValidatingAdmissionPolicy'), false);
  gate.set('AllAlpha=true,AllBeta=false,APIListChunking=true');
  assert.equal(gate.enabled('ValidatingAdmissionPolicy'), true);
  assert.equal(gate.enabled('APIPriorityAndFairness'), false);
  assert.equal(gate.enabled('APIListChunking'), true);
  assert.equal(gate.enabled('ServerSideApply'), true, 'GA gates ignore AllBeta');
  assert.throws(() => gate.enabled('NoSuchGate'), /not known/);
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

test('gates are per instance', () => {
  const a = new FeatureGate({ X: { default: false, stage: 'ALPHA' } });
  const b = new FeatureGate({ X: { default: false, stage: 'ALPHA' } });
  a.set('X=true');
  assert.equal(a.enabled('X'), true);
  assert.equal(b.enabled('X'), false);
  assert.deepEqual(a.all(), [{ name: 'X', stage: 'ALPHA', enabled: true }]);
});
