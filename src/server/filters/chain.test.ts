import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiServerMetrics } from '../metrics.js';
import type { ServerRequest, ServerResponse } from '../http.js';
import { DefaultResourceTable } from '../../registry/index.js';
import { andCatch, andFinally, compose, isPromise, RequestAbort, type Handler, type RequestScope } from './chain.js';
import { withCacheControl } from './cache-control.js';
import { withRequestDeadline } from './deadline.js';
import { withMetrics } from './metrics.js';
import { withPanicRecovery } from './recover.js';
import { withRequestId } from './request-id.js';
import { withRequestInfo } from './request-info.js';

describe('RequestAbort', () => {
  it('tells whether it aborted without making a signal', () => {
    const a = new RequestAbort();
    assert.equal(a.aborted, false);
    a.abort();
    assert.equal(a.aborted, true);
  });

  it('makes a signal that is already aborted when asked after the abort', () => {
    const a = new RequestAbort();
    a.abort();
    assert.equal(a.signal.aborted, true);
    assert.equal((a.signal.reason as DOMException).name, 'AbortError');
  });

  it('aborts a signal made before the abort, once, and hands out the same signal', () => {
    const a = new RequestAbort();
    const signal = a.signal;
    let fired = 0;
    signal.addEventListener('abort', () => fired++);
    a.abort();
    a.abort();
    assert.equal(fired, 1);
    assert.equal(a.signal, signal);
  });
});

describe('andFinally and andCatch', () => {
  it('run the follow-up in the same turn when nothing was awaited', () => {
    const order: string[] = [];
    const outcome = andFinally(
      () => void order.push('work'),
      () => void order.push('done'),
    );
    assert.equal(outcome, undefined);
    assert.deepEqual(order, ['work', 'done']);
    assert.throws(() =>
      andFinally(
        () => {
          throw new Error('boom');
        },
        () => void order.push('done again'),
      ),
    );
    assert.deepEqual(order, ['work', 'done', 'done again']);
    let caught: unknown;
    const handled = andCatch(
      () => {
        throw new Error('sync');
      },
      (err) => void (caught = err),
    );
    assert.equal(handled, undefined);
    assert.equal((caught as Error).message, 'sync');
  });

  it('wait for a promise and see its rejection', async () => {
    let done = false;
    const outcome = andFinally(() => Promise.resolve(), () => void (done = true));
    assert.ok(isPromise(outcome));
    assert.equal(done, false);
    await outcome;
    assert.equal(done, true);
    let caught: unknown;
    await andCatch(() => Promise.reject(new Error('later')), (err) => void (caught = err));
    assert.equal((caught as Error).message, 'later');
  });
});

/** A scope around a fake request and response that records what is written. */
function fakeScope(url: string): { scope: RequestScope; written: { status?: number; body?: string; headers: Map<string, unknown> } } {
  const written: { status?: number; body?: string; headers: Map<string, unknown> } = { headers: new Map() };
  const res = {
    statusCode: 200,
    headersSent: false,
    writableEnded: false,
    setHeader: (k: string, v: unknown) => written.headers.set(k.toLowerCase(), v),
    getHeader: (k: string) => written.headers.get(k.toLowerCase()),
    removeHeader: (k: string) => written.headers.delete(k.toLowerCase()),
    writeHead(code: number) {
      this.statusCode = code;
      written.status = code;
      this.headersSent = true;
      return this;
    },
    end(body?: string | Buffer) {
      written.status = this.statusCode;
      written.body = body === undefined ? '' : Buffer.from(body).toString('utf8');
      this.headersSent = true;
      this.writableEnded = true;
    },
  };
  const req = { method: 'GET', url, headers: {}, socket: undefined };
  const scope: RequestScope = {
    req: req as unknown as ServerRequest,
    res: res as unknown as ServerResponse,
    started: process.hrtime.bigint(),
    abort: new RequestAbort(),
    connection: undefined,
    warnings: [],
    method: 'GET',
    pathname: '/',
    query: new URLSearchParams(),
    pretty: false,
  };
  return { scope, written };
}

function outerFilters(): Parameters<typeof compose>[0] {
  return [withRequestId, withCacheControl, withMetrics(new ApiServerMetrics(), new DefaultResourceTable()), withPanicRecovery(undefined), withRequestInfo, withRequestDeadline(60_000)];
}

describe('the filter chain', () => {
  it('answers a request whose handler has nothing to wait for in the same turn, without a signal', () => {
    const { scope } = fakeScope('/api/v1/namespaces/default/configmaps/c');
    let handled = false;
    const handler: Handler = (s) => {
      handled = true;
      s.res.statusCode = 200;
    };
    const outcome = compose(outerFilters(), handler)(scope);
    assert.equal(isPromise(outcome), false);
    assert.equal(handled, true);
    assert.equal(scope.abort.aborted, false);
  });

  it('turns what a handler throws in the same turn into its Status', () => {
    const { scope, written } = fakeScope('/api/v1/namespaces/default/configmaps/c');
    const outcome = compose(outerFilters(), () => {
      throw new Error('broken');
    })(scope);
    assert.equal(isPromise(outcome), false);
    assert.equal(written.status, 500);
    assert.match(written.body ?? '', /"code":500/);
  });

  it('answers 504 once the deadline passes, and the handler sees its signal abort', async () => {
    const { scope, written } = fakeScope('/api/v1/namespaces/default/configmaps/c?timeout=20ms');
    let sawAbort: Promise<void> | undefined;
    const outcome = compose(outerFilters(), (s) => {
      // A handler that waits on its signal, and one asked for only once it waits.
      sawAbort = new Promise((resolve) => s.abort.signal.addEventListener('abort', () => resolve(), { once: true }));
      return new Promise(() => {});
    })(scope);
    assert.ok(isPromise(outcome));
    await outcome;
    await sawAbort;
    assert.equal(written.status, 504);
    assert.equal(scope.abort.signal.aborted, true);
  });
});
