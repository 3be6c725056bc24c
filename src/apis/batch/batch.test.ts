import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { strategyOf } from '../../testing/apis.js';
import { cronScheduleError } from './cron.js';

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);
const template = (): Record<string, unknown> => ({ spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } });

describe('jobs', () => {
  afterEach(() => setFlavor('orch'));

  it('get the batch/v1 defaults and a generated selector', () => {
    const s = strategyOf('batch', 'jobs');
    const job: KubeObject = { metadata: { name: 'pi', namespace: 'd', uid: 'u-1' }, spec: { template: template() } };
    s.defaults(job);
    s.prepareForCreate(job);
    const spec = job.spec as Record<string, unknown>;
    assert.equal(spec.completions, 1);
    assert.equal(spec.parallelism, 1);
    assert.equal(spec.backoffLimit, 6);
    assert.equal(spec.completionMode, 'NonIndexed');
    assert.equal(spec.suspend, false);
    assert.deepEqual(spec.selector, { matchLabels: { 'batch.orch.io/controller-uid': 'u-1' } });
    assert.deepEqual((spec.template as { metadata: { labels: unknown } }).metadata.labels, {
      'job-name': 'pi',
      'batch.orch.io/job-name': 'pi',
      'controller-uid': 'u-1',
      'batch.orch.io/controller-uid': 'u-1',
    });
    assert.deepEqual(job.status, {});
    assert.deepEqual(s.validate(job), []);

    setFlavor('kubernetes');
    const kube: KubeObject = { metadata: { name: 'pi', namespace: 'd', uid: 'u-2' }, spec: { template: template() } };
    const ks = strategyOf('batch', 'jobs');
    ks.defaults(kube);
    ks.prepareForCreate(kube);
    assert.deepEqual((kube.spec as Record<string, unknown>).selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-2' } });
  });

  it('keep parallelism when only it is set', () => {
    const s = strategyOf('batch', 'jobs');
    const job: KubeObject = { metadata: { name: 'x', namespace: 'd' }, spec: { parallelism: 3, template: template() } };
    s.defaults(job);
    assert.equal((job.spec as Record<string, unknown>).completions, undefined);
    assert.equal((job.spec as Record<string, unknown>).parallelism, 3);
  });

  it('refuse restartPolicy Always and an immutable template', () => {
    const s = strategyOf('batch', 'jobs');
    const job: KubeObject = { metadata: { name: 'pi', namespace: 'd', uid: 'u' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } };
    s.defaults(job);
    s.prepareForCreate(job);
    assert.deepEqual(rendered(s.validate(job)), ['spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"']);
    const ok: KubeObject = { metadata: { name: 'pi', namespace: 'd', uid: 'u' }, spec: { template: template() } };
    s.defaults(ok);
    s.prepareForCreate(ok);
    const changed = structuredClone(ok);
    ((changed.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]).image = 'alpine';
    const errs = rendered(s.validateUpdate(changed, ok));
    assert.equal(errs.length, 1);
    assert.match(errs[0], /^spec\.template: Invalid value: .*: field is immutable$/);
  });
});

describe('cron jobs', () => {
  const s = strategyOf('batch', 'cronjobs');
  const cj = (spec: Record<string, unknown>, name = 'cj'): KubeObject => ({ metadata: { name, namespace: 'd' }, spec: { jobTemplate: { spec: { template: template() } }, ...spec } });

  it('get their defaults', () => {
    const o = cj({ schedule: '*/1 * * * *' });
    s.defaults(o);
    const spec = o.spec as Record<string, unknown>;
    assert.equal(spec.concurrencyPolicy, 'Allow');
    assert.equal(spec.suspend, false);
    assert.equal(spec.successfulJobsHistoryLimit, 3);
    assert.equal(spec.failedJobsHistoryLimit, 1);
    assert.equal((spec.jobTemplate as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec.dnsPolicy, 'ClusterFirst');
    assert.deepEqual(s.validate(o), []);
  });

  it('check schedule, time zone, policy and name length', () => {
    const missing = cj({});
    s.defaults(missing);
    assert.deepEqual(rendered(s.validate(missing)), ['spec.schedule: Required value']);
    const bad = cj({ schedule: 'every minute', timeZone: 'Mars/Olympus', concurrencyPolicy: 'Sometimes' }, 'x'.repeat(53));
    s.defaults(bad);
    assert.deepEqual(rendered(s.validate(bad)), [
      `metadata.name: Invalid value: "${'x'.repeat(53)}": must be no more than 52 characters`,
      'spec.schedule: Invalid value: "every minute": expected exactly 5 fields, found 2: every minute',
      'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    ]);
    const tz = cj({ schedule: 'TZ=UTC 0 * * * *' });
    s.defaults(tz);
    assert.deepEqual(rendered(s.validate(tz)), ['spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead']);
  });

  it('parse cron schedules', () => {
    for (const ok of ['* * * * *', '*/15 0-6 1,15 * MON-FRI', '0 0 1 jan *', '@hourly', '@every 1h30m', '5 4 * * sun']) {
      assert.equal(cronScheduleError(ok), undefined, ok);
    }
    assert.equal(cronScheduleError('61 * * * *'), 'end of range (61) above maximum (59): 61');
    assert.equal(cronScheduleError('* * 0 * *'), 'beginning of range (0) below minimum (1): 0');
    assert.equal(cronScheduleError('@sometimes'), 'unrecognized descriptor: @sometimes');
    assert.equal(cronScheduleError('a * * * *'), 'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax');
  });
});
