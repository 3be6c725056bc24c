// Server-owned metadata as Kubernetes 1.27 writes it: `generation` only on kinds that keep
// one, raised by spec changes (and a Deployment's annotations); omitempty zero values
// (an emptied label map) are not written back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Server, meta, serverUnavailable } from './harness.js';

const skip = serverUnavailable();
const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const MERGE = 'application/merge-patch+json';

const deployment = {
  metadata: { name: 'web' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
  },
};

describe('server-owned metadata', { skip }, () => {
  let server: Server;

  before(async () => {
    server = await Server.start(['--compat', 'kubernetes', '--storage-backend', 'memory']);
  });

  after(async () => {
    await server?.stop();
  });

  test('a ConfigMap has no generation, before and after updates', async () => {
    const created = await server.expect(201, 'POST', CM, { body: { metadata: { name: 'plain' }, data: { a: '1' } } });
    assert.equal('generation' in meta(created), false);
    const patched = await server.expect(200, 'PATCH', `${CM}/plain`, { body: { data: { a: '2' } }, contentType: MERGE });
    assert.equal('generation' in meta(patched), false);
  });

  test('a Deployment starts at generation 1; spec and annotation changes raise it, labels do not', async () => {
    const created = await server.expect(201, 'POST', DEPLOY, { body: deployment });
    assert.equal(meta(created).generation, 1);
    const scaled = await server.expect(200, 'PATCH', `${DEPLOY}/web`, { body: { spec: { replicas: 2 } }, contentType: MERGE });
    assert.equal(meta(scaled).generation, 2);
    const labelled = await server.expect(200, 'PATCH', `${DEPLOY}/web`, { body: { metadata: { labels: { x: 'y' } } }, contentType: MERGE });
    assert.equal(meta(labelled).generation, 2);
    const annotated = await server.expect(200, 'PATCH', `${DEPLOY}/web`, { body: { metadata: { annotations: { x: 'y' } } }, contentType: MERGE });
    assert.equal(meta(annotated).generation, 3);
  });

  test('removing the last label leaves no empty label map behind', async () => {
    await server.expect(200, 'PATCH', `${CM}/plain`, { body: { metadata: { labels: { k: 'v' } } }, contentType: MERGE });
    const unlabelled = await server.expect(200, 'PATCH', `${CM}/plain`, { body: { metadata: { labels: { k: null } } }, contentType: MERGE });
    assert.equal('labels' in meta(unlabelled), false);
    const read = await server.expect(200, 'GET', `${CM}/plain`);
    assert.equal('labels' in meta(read), false);
  });

  test('re-creating a namespace that is still terminating is 409 "object is being deleted"', async () => {
    await server.expect(201, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ending' } } });
    await server.expect(201, 'POST', '/api/v1/namespaces/ending/configmaps', { body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await server.expect(200, 'DELETE', '/api/v1/namespaces/ending');
    const again = await server.expect(409, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ending' } } });
    assert.equal(again.message, 'object is being deleted: namespaces "ending" already exists');
    assert.equal(again.reason, 'AlreadyExists');
    await server.expect(200, 'PATCH', '/api/v1/namespaces/ending/configmaps/held', { body: { metadata: { finalizers: null } }, contentType: MERGE });
  });

  test('a create carrying a resourceVersion is a 500 with the bare storage text and no reason', async () => {
    const reply = await server.request('POST', CM, { body: { metadata: { name: 'with-rv', resourceVersion: '5' } } });
    assert.equal(reply.status, 500);
    assert.equal(reply.json?.message, 'resourceVersion should not be set on objects to be created');
    assert.equal('reason' in (reply.json ?? {}), false);
    assert.equal('details' in (reply.json ?? {}), false);
  });

  test('objects read as Go writes them: empty structs as {} and a template creationTimestamp as null', async () => {
    const read = await server.expect(200, 'GET', `${DEPLOY}/web`);
    const spec = read.spec as Record<string, Record<string, Record<string, unknown>>>;
    assert.equal(spec.template?.metadata?.creationTimestamp, null);
    assert.ok('creationTimestamp' in (spec.template?.metadata ?? {}));
    assert.deepEqual((spec.template?.spec?.containers as Record<string, unknown>[])[0]?.resources, {});
    assert.ok('status' in read);
  });

  test('fields without omitempty are written with their zero value, as on a Kubernetes Event', async () => {
    const event = await server.expect(201, 'POST', '/api/v1/namespaces/default/events', {
      body: { metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', message: 'm', type: 'Normal' },
    });
    assert.equal(event.reportingComponent, '');
    assert.equal(event.reportingInstance, '');
    assert.deepEqual(event.source, {});
    assert.equal(event.eventTime, null);
    assert.equal('count' in event, false);
  });
});
