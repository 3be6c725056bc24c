// LIST answers written as a stream: the same bytes as the whole encode in every JSON
// representation, the pace of a slow client, a client that leaves, and a failure midway
// that the client must see as a failure.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { createServer as createHttpServer, get as httpGet, type IncomingMessage } from 'node:http';
import { connect as http2Connect, constants as h2, createServer as createHttp2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { KubeList, KubeObject } from '../../apimachinery/types.js';
import { LIST_CHUNK_BYTES } from '../../codec/json-list.js';
import { withLazyItems } from '../../registry/list.js';
import { negotiateOutput } from '../../codec/negotiate.js';
import { SerializerSet } from '../../codec/serializer.js';
import { metaGroup } from '../../naming/index.js';
import type { RESTStore } from '../../rest/index.js';
import { startTestServer, type TestServer } from '../../testing/api-server.js';
import type { ServerResponse } from '../http.js';
import type { ResourceRequest } from './request.js';
import { respond, respondList } from './response.js';

const serializers = new SerializerSet();
const store = { definition: {} } as unknown as RESTStore;
const NOW = new Date('2026-01-01T00:00:00Z');

/** A response that records what is written; `full` makes every write report a full buffer. */
class FakeResponse extends EventEmitter {
  statusCode = 0;
  headersSent = false;
  writableEnded = false;
  destroyed = false;
  destroyError: Error | undefined;
  headers = new Map<string, unknown>();
  chunks: Buffer[] = [];
  full = false;

  setHeader(name: string, value: unknown): void {
    this.headers.set(name.toLowerCase(), value);
  }
  getHeader(name: string): unknown {
    return this.headers.get(name.toLowerCase());
  }
  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }
  write(chunk: Uint8Array | string): boolean {
    this.headersSent = true;
    this.chunks.push(Buffer.from(chunk));
    return !this.full;
  }
  end(chunk?: Uint8Array | string): void {
    this.headersSent = true;
    if (chunk !== undefined) this.chunks.push(Buffer.from(chunk));
    this.writableEnded = true;
  }
  destroy(err?: Error): void {
    this.destroyed = true;
    this.destroyError = err;
    this.emit('close');
  }
  get body(): string {
    return Buffer.concat(this.chunks).toString();
  }
}

function request(res: FakeResponse, opts: { pretty?: boolean; query?: string; method?: string; signal?: AbortSignal } = {}): ResourceRequest {
  return {
    req: { method: opts.method ?? 'GET', headers: {}, socket: undefined, on: () => undefined, destroy: () => undefined, [Symbol.asyncIterator]: undefined as never },
    res: res as unknown as ServerResponse,
    info: { subresource: '' } as ResourceRequest['info'],
    query: new URLSearchParams(opts.query ?? ''),
    user: { username: 'u', groups: [] },
    signal: opts.signal ?? new AbortController().signal,
    get aborted() {
      return this.signal.aborted;
    },
    warnings: ['careful'],
    pretty: opts.pretty ?? false,
  };
}

function configMaps(n: number, from = 0): KubeObject[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: `cm-${from + i}`, namespace: 'ns', resourceVersion: String(from + i + 1), creationTimestamp: '2025-12-31T00:00:00Z', labels: { b: '1', a: '2' } },
    data: { key: 'x'.repeat(200), 'ünï': '🚀' },
  }));
}

function list(items: KubeObject[]): KubeList {
  return { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '99', continue: 'c', remainingItemCount: 3 }, items };
}

const ticks = (n: number): Promise<void> => (n <= 0 ? Promise.resolve() : new Promise((resolve) => setImmediate(() => void ticks(n - 1).then(resolve))));

describe('streamed LIST answers', () => {
  const accepts = [
    undefined,
    `application/json;as=PartialObjectMetadataList;v=v1;g=${metaGroup()}`,
    `application/json;as=PartialObjectMetadataList;v=v1beta1;g=${metaGroup()}`,
    `application/json;as=Table;v=v1;g=${metaGroup()}`,
  ];
  for (const accept of accepts) {
    for (const query of ['', 'includeObject=Object', 'includeObject=None']) {
      for (const pretty of [false, true]) {
        for (const size of [0, 1, 3000]) {
          it(`writes the bytes of the whole encode: ${accept ?? 'plain JSON'} ${query} pretty=${pretty}, ${size} items`, async () => {
            const choice = negotiateOutput(accept, serializers, 'list');
            const whole = new FakeResponse();
            respond(request(whole, { pretty, query }), serializers, store, choice, 200, list(configMaps(size)), NOW);
            const streamed = new FakeResponse();
            await respondList(request(streamed, { pretty, query }), serializers, store, choice, list(configMaps(size)), NOW);
            assert.equal(streamed.body, whole.body);
            assert.equal(streamed.statusCode, 200);
            assert.equal(streamed.getHeader('content-type'), whole.getHeader('content-type'));
            assert.deepEqual(streamed.getHeader('warning'), ['299 - "careful"']);
            assert.ok(streamed.writableEnded);
            if (streamed.body.length > 3 * LIST_CHUNK_BYTES) assert.ok(streamed.chunks.length > 2, `${streamed.chunks.length} writes`);
          });
        }
      }
    }
  }

  it('builds the items of an on-demand list as it writes them, with the bytes of the whole encode', async () => {
    for (const accept of accepts) {
      for (const pretty of [false, true]) {
        const choice = negotiateOutput(accept, serializers, 'list');
        const whole = new FakeResponse();
        respond(request(whole, { pretty }), serializers, store, choice, 200, list(configMaps(3000)), NOW);
        let built = 0;
        const source = configMaps(3000);
        const lazy = withLazyItems(list([]), { count: source.length, at: (i) => (built++, structuredClone(source[i])) });
        const streamed = new FakeResponse();
        await respondList(request(streamed, { pretty }), serializers, store, choice, lazy, NOW);
        assert.equal(streamed.body, whole.body, `${accept ?? 'plain JSON'} pretty=${pretty}`);
        assert.equal(built, 3000, 'each item built once, and no array of them');
      }
    }
  });

  it('fills an on-demand list for the answers encoded whole', async () => {
    const source = configMaps(3);
    const lazy = (): KubeList => withLazyItems(list([]), { count: source.length, at: (i) => structuredClone(source[i]) });
    const yaml = new FakeResponse();
    await respondList(request(yaml), serializers, store, negotiateOutput('application/yaml', serializers, 'list'), lazy(), NOW);
    const whole = new FakeResponse();
    respond(request(whole), serializers, store, negotiateOutput('application/yaml', serializers, 'list'), 200, list(configMaps(3)), NOW);
    assert.equal(yaml.body, whole.body);
    const head = new FakeResponse();
    await respondList(request(head, { method: 'HEAD' }), serializers, store, negotiateOutput(undefined, serializers, 'list'), lazy(), NOW);
    assert.equal(Number(head.getHeader('content-length')), Buffer.byteLength(JSON.stringify(list(configMaps(3)))) + 1);
  });

  it('keeps the whole encode for YAML and HEAD (Content-Length set)', async () => {
    const yaml = new FakeResponse();
    await respondList(request(yaml), serializers, store, negotiateOutput('application/yaml', serializers, 'list'), list(configMaps(3)), NOW);
    assert.match(yaml.body, /^apiVersion: v1\nitems:/);
    assert.equal(yaml.getHeader('content-length'), Buffer.byteLength(yaml.body));
    const head = new FakeResponse();
    await respondList(request(head, { method: 'HEAD' }), serializers, store, negotiateOutput(undefined, serializers, 'list'), list(configMaps(300)), NOW);
    assert.equal(head.body, '');
    assert.ok(Number(head.getHeader('content-length')) > 64 * 1024);
  });

  it('waits for a client that stops reading instead of encoding the rest into memory', async () => {
    const res = new FakeResponse();
    res.full = true;
    const done = respondList(request(res), serializers, store, negotiateOutput(undefined, serializers, 'list'), list(configMaps(5000)), NOW);
    await ticks(20);
    assert.equal(res.chunks.length, 1, 'one chunk written, then the writer waits for drain');
    assert.ok(res.chunks[0]!.length < 3 * LIST_CHUNK_BYTES);
    assert.equal(res.writableEnded, false);
    res.full = false;
    res.emit('drain');
    await done;
    assert.ok(res.writableEnded);
    assert.equal((JSON.parse(res.body) as KubeList).items.length, 5000);
  });

  it('keeps about 1 MiB queued for a client that stops reading, then waits', async () => {
    const res = new FakeResponse();
    res.full = true;
    // Nothing is ever handed to the socket: everything written stays queued.
    Object.defineProperty(res, 'writableLength', { get: () => res.chunks.reduce((n, c) => n + c.length, 0) });
    const done = respondList(request(res), serializers, store, negotiateOutput(undefined, serializers, 'list'), list(configMaps(20000)), NOW);
    await ticks(200);
    const queued = res.chunks.reduce((n, c) => n + c.length, 0);
    assert.ok(queued > 1024 * 1024 && queued < 1024 * 1024 + 3 * LIST_CHUNK_BYTES, `${queued} bytes queued`);
    res.full = false;
    res.chunks.length = 0;
    res.emit('drain');
    await done;
    assert.ok(res.writableEnded);
  });

  it('stops encoding when the client goes away midway', async () => {
    const res = new FakeResponse();
    res.full = true;
    const ac = new AbortController();
    const done = respondList(request(res, { signal: ac.signal }), serializers, store, negotiateOutput(undefined, serializers, 'list'), list(configMaps(5000)), NOW);
    await ticks(5);
    ac.abort();
    await done;
    assert.equal(res.chunks.length, 1);
    assert.equal(res.writableEnded, false);
    assert.ok(res.destroyed, 'the response is destroyed, not ended');
  });

  it('destroys the response, never ends it, when an item fails to encode midway', async () => {
    const items = configMaps(1000);
    (items[900] as Record<string, unknown>).self = items[900];
    const res = new FakeResponse();
    await respondList(request(res), serializers, store, negotiateOutput(undefined, serializers, 'list'), list(items), NOW);
    assert.ok(res.chunks.length > 0, 'the answer had started');
    assert.equal(res.writableEnded, false);
    assert.ok(res.destroyed);
    assert.match(res.destroyError?.message ?? '', /circular/);
    assert.throws(() => JSON.parse(res.body) as unknown);
  });

  it('fails as an ordinary error when the first chunk cannot be encoded', async () => {
    const items = configMaps(2);
    (items[0] as Record<string, unknown>).self = items[0];
    const res = new FakeResponse();
    await assert.rejects(respondList(request(res), serializers, store, negotiateOutput(undefined, serializers, 'list'), list(items), NOW), TypeError);
    assert.equal(res.headersSent, false);
  });
});

describe('a streamed LIST that fails midway, over real connections', () => {
  const failing = (): KubeList => {
    const items = configMaps(2000);
    (items[1500] as Record<string, unknown>).self = items[1500];
    return list(items);
  };
  const handle = (req: unknown, res: unknown): void => {
    const r = request(res as FakeResponse);
    r.res = res as ServerResponse;
    void respondList(r, serializers, store, negotiateOutput(undefined, serializers, 'list'), failing(), NOW);
  };

  it('HTTP/1.1: the connection closes without the last chunk', async () => {
    const server = createHttpServer(handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const outcome = await new Promise<string>((resolve) => {
        httpGet({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' }, (res: IncomingMessage) => {
          res.on('data', () => undefined);
          res.on('end', () => resolve('complete'));
          res.on('error', () => resolve('error'));
          res.on('aborted', () => resolve('error'));
        }).on('error', () => resolve('error'));
      });
      assert.equal(outcome, 'error');
    } finally {
      server.close();
    }
  });

  it('HTTP/2: the stream is reset', async () => {
    const server = createHttp2Server(handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2Connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const code = await new Promise<number>((resolve) => {
        const stream = client.request({ ':path': '/' });
        stream.on('data', () => undefined);
        stream.on('error', () => undefined);
        stream.on('close', () => resolve(stream.rstCode ?? -1));
      });
      assert.equal(code, h2.NGHTTP2_INTERNAL_ERROR);
    } finally {
      client.close();
      server.close();
    }
  });
});

describe('LIST through the whole server', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await server.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'big' } } });
    for (let i = 0; i < 400; i++) {
      const res = await server.request('POST', '/api/v1/namespaces/big/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { v: 'x'.repeat(300) } } });
      assert.equal(res.status, 201);
    }
  });
  after(() => server.close());

  it('answers a list larger than one chunk as parseable JSON with every item', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/big/configmaps');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    const body = JSON.parse(res.body) as KubeList;
    assert.equal(body.kind, 'ConfigMapList');
    assert.equal(body.items.length, 400);
    assert.deepEqual(body.items.map((o) => o.metadata?.name).sort(), Array.from({ length: 400 }, (_, i) => `cm-${i}`).sort());
  });

  it('answers pretty, Table, metadata and HEAD requests', async () => {
    const pretty = await server.request('GET', '/api/v1/namespaces/big/configmaps?pretty=true');
    assert.equal((JSON.parse(pretty.body) as KubeList).items.length, 400);
    assert.match(pretty.body, /^{\n {2}"kind": "ConfigMapList",\n/);
    const table = await server.request('GET', '/api/v1/namespaces/big/configmaps', { headers: { accept: `application/json;as=Table;v=v1;g=${metaGroup()}` } });
    assert.equal((JSON.parse(table.body) as { rows: unknown[] }).rows.length, 400);
    const meta = await server.request('GET', '/api/v1/namespaces/big/configmaps', { headers: { accept: `application/json;as=PartialObjectMetadataList;v=v1;g=${metaGroup()}` } });
    const metaList = JSON.parse(meta.body) as KubeList;
    assert.equal(metaList.items.length, 400);
    assert.equal(metaList.items[0]!.kind, 'PartialObjectMetadata');
    const head = await server.request('HEAD', '/api/v1/namespaces/big/configmaps');
    assert.equal(head.status, 200);
  });

  it('pages with limit and continue as before', async () => {
    const page = await server.request('GET', '/api/v1/namespaces/big/configmaps?limit=150');
    const body = JSON.parse(page.body) as KubeList;
    assert.equal(body.items.length, 150);
    assert.equal(body.metadata.remainingItemCount, 250);
    assert.ok(body.metadata.continue);
  });
});
