import assert from 'node:assert/strict';
import { test } from 'node:test';
import { register } from 'prom-client';
import { workQueueMetrics } from './workqueue-metrics.js';

test('work queue metrics carry the queue name, as Kubernetes names them', async () => {
  const m = workQueueMetrics('garbage_collector_attempt_to_delete');
  m.add();
  m.add();
  m.retry();
  m.depth(3);
  workQueueMetrics('cronjob').add();
  const text = await register.metrics();
  assert.match(text, /^workqueue_adds_total\{name="garbage_collector_attempt_to_delete"\} 2$/m);
  assert.match(text, /^workqueue_adds_total\{name="cronjob"\} 1$/m);
  assert.match(text, /^workqueue_retries_total\{name="garbage_collector_attempt_to_delete"\} 1$/m);
  assert.match(text, /^workqueue_depth\{name="garbage_collector_attempt_to_delete"\} 3$/m);
});

test('queues of one name add up their depths', async () => {
  const a = workQueueMetrics('shared_depth_queue');
  const b = workQueueMetrics('shared_depth_queue');
  a.depth(2);
  b.depth(3);
  a.depth(1);
  const text = await register.metrics();
  assert.match(text, /^workqueue_depth\{name="shared_depth_queue"\} 4$/m);
  b.depth(0);
  assert.match(await register.metrics(), /^workqueue_depth\{name="shared_depth_queue"\} 1$/m);
});
