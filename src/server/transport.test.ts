// The listener under abuse: HTTP/2 rapid reset, slow headers, silent TLS connections, idle
// keep-alive connections and HTTP/2 sessions, and a flood of unauthenticated connections.
// Timeouts are configured short so that each case takes well under a second.
import { defaultConnectionLimits, openFileLimit } from './connections.js';
import assert from 'node:assert/strict';
import { connect as h2connect, constants as h2 } from 'node:http2';
import { Agent, request } from 'node:https';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../testing/api-server.js';
import { eventually } from '../testing/wait.js';

const SHORT = { headerTimeoutMs: 300, idleTimeoutMs: 300, maxUnauthenticated: 5, maxResetsPerWindow: 100, resetWindowMs: 10_000 };

let t: TestServer;
before(async () => {
  t = await startTestServer({ connections: SHORT });
  await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'default' } } });
  // About 2 MB of list.
  const big = 'x'.repeat(10_000);
  for (let i = 0; i < 200; i++) await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `cm-${i}` }, data: { v: big } } });
});
after(async () => {
  await t.close();
});

function frame(type: number, flags: number, id: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(id, 5);
  return Buffer.concat([h, payload]);
}

/** A HEADERS block for GET `path`: static-table method and scheme, literal path and authority. */
function headerBlock(path: string): Buffer {
  const literal = (index: number, value: string): Buffer => Buffer.concat([Buffer.from([index, value.length]), Buffer.from(value)]);
  return Buffer.concat([Buffer.from([0x82, 0x87]), literal(0x04, path), literal(0x01, 'localhost')]);
}

/** Times until the socket closes, or undefined if it stays open for `limitMs`. */
function closesWithin(socket: { once(e: 'close', l: () => void): unknown; destroy(): void }, limitMs: number): Promise<number | undefined> {
  const started = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, limitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

function tlsOpen(alpn: string[] = ['http/1.1'], admin = false): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port: t.port, ca: t.caPem, servername: 'localhost', ALPNProtocols: alpn, ...(admin ? t.admin : {}) }, () => resolve(s));
    s.on('error', reject);
  });
}

async function livezMs(): Promise<number> {
  const started = Date.now();
  const r = await t.request('GET', '/livez');
  assert.equal(r.status, 200);
  return Date.now() - started;
}

describe('HTTP/2 abuse', () => {
  it('ends a rapid-reset session with GOAWAY ENHANCE_YOUR_CALM, does no work for reset streams and stays responsive', async () => {
    const listsBefore = (await t.request('GET', '/metrics')).body;
    const heapBefore = process.memoryUsage().heapUsed;
    const s = await tlsOpen(['h2'], true);
    // Open flow-control windows wide, as a client reading everything would.
    const settings = Buffer.alloc(6);
    settings.writeUInt16BE(4);
    settings.writeUInt32BE(2 ** 31 - 1, 2);
    const windowUpdate = Buffer.alloc(4);
    windowUpdate.writeUInt32BE(2 ** 31 - 1 - 65_535);
    s.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), frame(4, 0, 0, settings), frame(8, 0, 0, windowUpdate)]));
    let goaway: number | undefined;
    let buf = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 9) {
        const len = buf.readUIntBE(0, 3);
        if (buf.length < 9 + len) break;
        if (buf[3] === 7 && goaway === undefined) goaway = buf.readUInt32BE(13);
        if (buf[3] === 4 && (buf[4]! & 1) === 0) s.write(frame(4, 1, 0, Buffer.alloc(0)));
        buf = buf.subarray(9 + len);
      }
    });
    const closed = closesWithin(s, 15_000);
    const cancel = Buffer.alloc(4);
    cancel.writeUInt32BE(h2.NGHTTP2_CANCEL);
    const probes: Promise<number>[] = [];
    for (let id = 1, sent = 0; sent < 1000 && !s.destroyed; sent += 50) {
      const batch: Buffer[] = [];
      for (let k = 0; k < 50; k++, id += 2) batch.push(frame(1, 0x5, id, headerBlock('/api/v1/namespaces/default/configmaps')), frame(3, 0, id, cancel));
      s.write(Buffer.concat(batch));
      if (sent % 200 === 0) probes.push(livezMs());
      await new Promise((r) => setImmediate(r));
    }
    assert.notEqual(await closed, undefined, 'the abusive session was not closed');
    assert.equal(goaway, h2.NGHTTP2_ENHANCE_YOUR_CALM);
    const slowest = Math.max(...(await Promise.all(probes)), await livezMs());
    assert.ok(slowest < 2000, `/livez took ${slowest} ms during the flood`);
    // No reset stream was answered with a list.
    const count = (text: string): number => {
      const m = /apiserver_request_total\{[^}]*verb="LIST"[^}]*resource="configmaps"[^}]*code="200"[^}]*\} (\d+)/.exec(text);
      return m ? Number(m[1]) : 0;
    };
    assert.equal(count((await t.request('GET', '/metrics')).body), count(listsBefore));
    const grown = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    assert.ok(grown < 200, `heap grew by ${grown.toFixed(0)} MiB`);
  });

  it('advertises the stream limit and closes an idle session with GOAWAY', async () => {
    const session = h2connect(`https://127.0.0.1:${t.port}`, { ca: t.caPem, ...t.admin });
    session.on('error', () => {});
    await new Promise((r) => session.once('remoteSettings', r));
    assert.equal(session.remoteSettings.maxConcurrentStreams, 1000);
    await new Promise<void>((resolve, reject) => {
      const st = session.request({ ':path': '/livez' });
      st.on('response', (h) => (h[':status'] === 200 ? undefined : reject(new Error(String(h[':status'])))));
      st.resume();
      st.on('end', resolve);
    });
    const started = Date.now();
    const code = await new Promise<number | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), 3000);
      session.once('goaway', (c: number) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    session.destroy();
    assert.equal(code, h2.NGHTTP2_NO_ERROR);
    assert.ok(Date.now() - started < 2000);
  });
});

describe('slow and idle connections', () => {
  it('closes a connection that sends its headers one byte at a time', async () => {
    const s = await tlsOpen();
    s.on('error', () => {});
    const text = 'GET /livez HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' + 'a'.repeat(100);
    let i = 0;
    const drip = setInterval(() => (s.writable ? s.write(text[i++ % text.length]!) : undefined), 100);
    const ms = await closesWithin(s, 5000);
    clearInterval(drip);
    assert.notEqual(ms, undefined, 'still open after 5 s');
  });

  it('closes a TCP connection that never starts TLS, and a TLS connection that sends nothing', async () => {
    const tcp = netConnect({ host: '127.0.0.1', port: t.port });
    tcp.on('error', () => {});
    const tls = await tlsOpen();
    tls.on('error', () => {});
    const [a, b] = await Promise.all([closesWithin(tcp, 5000), closesWithin(tls, 5000)]);
    assert.notEqual(a, undefined, 'silent TCP connection still open after 5 s');
    assert.notEqual(b, undefined, 'silent TLS connection still open after 5 s');
  });

  it('closes an idle HTTP/1.1 keep-alive connection after the idle timeout', async () => {
    const agent = new Agent({ keepAlive: true, ca: t.caPem, cert: t.admin.cert, key: t.admin.key });
    const socket = await new Promise<TLSSocket>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: t.port, path: '/livez', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(req.socket as TLSSocket));
      });
      req.on('error', reject);
      req.end();
    });
    const ms = await closesWithin(socket, 5000);
    agent.destroy();
    assert.notEqual(ms, undefined, 'idle keep-alive connection still open after 5 s');
  });

  it('keeps serving authenticated clients while unauthenticated connections are held open', async () => {
    // Long deadlines here, so that only the cap of 5 can close anything.
    const s2 = await startTestServer({ connections: { headerTimeoutMs: 10_000, idleTimeoutMs: 10_000, maxUnauthenticated: 5 } });
    const held: TLSSocket[] = [];
    const closedCount = { n: 0 };
    try {
      for (let i = 0; i < 20; i++) {
        const s = await new Promise<TLSSocket>((resolve, reject) => {
          const c = tlsConnect({ host: '127.0.0.1', port: s2.port, ca: s2.caPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => resolve(c));
          c.on('error', reject);
        });
        s.on('error', () => {});
        s.on('close', () => closedCount.n++);
        held.push(s);
      }
      const r = await s2.request('GET', '/api/v1/namespaces?limit=1');
      assert.equal(r.status, 200);
      // Over the cap of 5, the oldest idle unauthenticated connections are let go at once.
      await eventually(() => closedCount.n >= 15, '15 of 20 idle connections to close', 2000);
      assert.ok(held.slice(-4).every((s) => !s.destroyed), 'the newest connections should stay');
    } finally {
      for (const s of held) s.destroy();
      await s2.close();
    }
  });
});

it('connections without credentials may hold half the open-file limit, never fewer than 256', () => {
  assert.equal(defaultConnectionLimits(1024).maxUnauthenticated, 512);
  assert.equal(defaultConnectionLimits(20_000).maxUnauthenticated, 10_000);
  assert.equal(defaultConnectionLimits(100).maxUnauthenticated, 256);
  assert.ok(Number.isSafeInteger(openFileLimit()) && openFileLimit() > 0);
});
