import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { definitionOf, strategyOf } from '../../testing/apis.js';
import { coreToEventsV1, eventsV1ToCore } from './index.js';

const eventsV1 = (): KubeObject => ({
  apiVersion: 'events.orch.io/v1',
  kind: 'Event',
  metadata: { name: 'web.1', namespace: 'd' },
  eventTime: '2024-05-01T12:00:00.000000Z',
  series: { count: 3, lastObservedTime: '2024-05-01T12:05:00.000000Z' },
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Scale',
  reason: 'Scaled',
  regarding: { kind: 'Deployment', namespace: 'd', name: 'web' },
  related: { kind: 'ReplicaSet', name: 'web-1' },
  note: 'scaled up',
  type: 'Normal',
  deprecatedSource: { component: 'ctl', host: 'h' },
  deprecatedFirstTimestamp: '2024-05-01T12:00:00Z',
  deprecatedLastTimestamp: '2024-05-01T12:05:00Z',
  deprecatedCount: 3,
});

describe('events.<domain>/v1 Event <-> core v1 Event', () => {
  afterEach(() => setFlavor('orch'));

  it('renames the fields into the core shape', () => {
    const core = eventsV1ToCore(eventsV1());
    assert.deepEqual(core, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web.1', namespace: 'd' },
      eventTime: '2024-05-01T12:00:00.000000Z',
      series: { count: 3, lastObservedTime: '2024-05-01T12:05:00.000000Z' },
      reportingComponent: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Scale',
      reason: 'Scaled',
      involvedObject: { kind: 'Deployment', namespace: 'd', name: 'web' },
      related: { kind: 'ReplicaSet', name: 'web-1' },
      message: 'scaled up',
      type: 'Normal',
      source: { component: 'ctl', host: 'h' },
      firstTimestamp: '2024-05-01T12:00:00Z',
      lastTimestamp: '2024-05-01T12:05:00Z',
      count: 3,
    });
  });

  it('round-trips both ways', () => {
    assert.deepEqual(coreToEventsV1(eventsV1ToCore(eventsV1())), eventsV1());
    const core: KubeObject = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'd' }, involvedObject: { kind: 'Pod', name: 'p' }, message: 'm', count: 1, source: { component: 'kubelet' } };
    const v1 = coreToEventsV1(core);
    assert.deepEqual(v1, { apiVersion: 'events.orch.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'd' }, regarding: { kind: 'Pod', name: 'p' }, note: 'm', deprecatedCount: 1, deprecatedSource: { component: 'kubelet' } });
    assert.deepEqual(eventsV1ToCore(v1), core);
  });

  it('is the conversion of the events definition, in each flavor', () => {
    assert.equal(definitionOf('events.orch.io', 'events').conversion?.toStorage, eventsV1ToCore);
    setFlavor('kubernetes');
    assert.equal(coreToEventsV1({ metadata: {} }).apiVersion, 'events.k8s.io/v1');
  });
});

describe('Event validation per writing API', () => {
  const core = strategyOf('', 'events');
  const strict = definitionOf('events.orch.io', 'events').strategy;
  const rendered = (errs: { field: string; detail: string }[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);

  it('old-style core events must agree with the involved object namespace', () => {
    assert.deepEqual(core.validate({ metadata: { name: 'e', namespace: 'd' }, involvedObject: { kind: 'Pod', namespace: 'd', name: 'p' } }), []);
    assert.deepEqual(core.validate({ metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Node', name: 'n' } }), []);
    assert.deepEqual(rendered(core.validate({ metadata: { name: 'e', namespace: 'd' }, involvedObject: { kind: 'Node', name: 'n' } })), [
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
    ]);
  });

  it('new-style events need the reporting fields, named as the writing API names them', () => {
    const o: KubeObject = { metadata: { name: 'e', namespace: 'd' }, eventTime: '2024-05-01T12:00:00.000000Z', involvedObject: { kind: 'Pod', namespace: 'd', name: 'p' } };
    assert.deepEqual(rendered(core.validate(o)), ['reportingComponent: Required value', 'reportingInstance: Required value', 'action: Required value', 'reason: Required value']);
    assert.ok(strict);
    assert.deepEqual(rendered(strict.validate(eventsV1ToCore({ metadata: { name: 'e', namespace: 'd' }, regarding: { kind: 'Pod', namespace: 'd', name: 'p' }, deprecatedCount: 2 }))), [
      'eventTime: Required value',
      'type: Invalid value: "": has invalid value: ',
      'count: Invalid value: "": needs to be unset',
    ]);
    const ok = eventsV1ToCore({
      metadata: { name: 'e', namespace: 'd' },
      eventTime: '2024-05-01T12:00:00.000000Z',
      regarding: { kind: 'Pod', namespace: 'd', name: 'p' },
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Check',
      reason: 'Checked',
      type: 'Normal',
    });
    assert.deepEqual(rendered(strict.validate(ok)), []);
    assert.deepEqual(rendered(strict.validateUpdate({ ...ok, series: { count: 2, lastObservedTime: '2024-05-01T12:01:00.000000Z' } }, ok)), []);
    assert.deepEqual(rendered(strict.validateUpdate({ ...ok, reason: 'Other' }, ok)), ['reason: Invalid value: "Other": field is immutable']);
  });
});
