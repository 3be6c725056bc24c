import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, test } from 'node:test';
import { answeredHeaders, forwardedHeaders, proxyRequest, proxyUpgrade, UpstreamError, type ProxyTarget } from './transport.js';

const servers: Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function listen(s: Server): Promise<number> {
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
}

/** A front server that proxies every request (and upgrade) to `target`. */
async function front(target: (path: string) => ProxyTarget): Promise<number> {
  const s = createServer((req, res) => {
    proxyRequest(req, res, target(req.url ?? '/')).catch((err: unknown) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end(err instanceof UpstreamError ? `upstream: ${err.message}` : 'other');
    });
  });
  s.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    proxyUpgrade(req, socket, head, target(req.url ?? '/')).catch(() => socket.end('HTTP/1.1 503 Service Unavailable\r\n\r\n'));
  });
  return listen(s);
}

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
  onData?: (received: string) => void,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ agent: false, port, host: '127.0.0.1', path, method: body ? 'POST' : 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
        onData?.(text);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

test('headers: hop-by-hop, pseudo, dropped and replaced ones never reach the upstream', () => {
  const out = forwardedHeaders(
    { ':path': '/x', connection: 'keep-alive, x-secret', 'x-secret': 's', authorization: 'Bearer t', 'x-remote-user': 'forged', accept: 'application/json', 'transfer-encoding': 'chunked', upgrade: 'websocket' },
    { url: new URL('http://u'), dropHeaders: ['authorization'], setHeaders: { 'X-Remote-User': 'alice' } },
  );
  assert.deepEqual({ ...out }, { accept: 'application/json', 'x-remote-user': 'alice' });
  const kept = forwardedHeaders({ connection: 'Upgrade', upgrade: 'SPDY/3.1' }, { url: new URL('http://u') }, true);
  assert.deepEqual({ ...kept }, { connection: 'Upgrade', upgrade: 'SPDY/3.1' });
  assert.deepEqual({ ...answeredHeaders({ 'content-type': 'a', connection: 'close', 'keep-alive': 'timeout=5', 'transfer-encoding': 'chunked' }) }, { 'content-type': 'a' });
});

test('a request and its body are forwarded and the answer streams back', async () => {
  const seen: { method?: string; url?: string; body: string; remote?: string; auth?: string }[] = [];
  // The answer comes in two pieces, the second only once the client has the first: the proxy
  // passes each on at once (after 5 s the upstream ends anyway, and the test fails).
  let firstPieceReceived!: (received: boolean) => void;
  const streamed = new Promise<boolean>((resolve) => (firstPieceReceived = resolve));
  const up = await listen(
    createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, body, remote: req.headers['x-remote-user'] as string, auth: req.headers.authorization });
        res.writeHead(201, { 'content-type': 'application/json', 'x-up': '1' });
        res.write('{"a":');
        const giveUp = setTimeout(() => firstPieceReceived(false), 5000);
        void streamed.then(() => {
          clearTimeout(giveUp);
          res.end('1}');
        });
      });
    }),
  );
  const port = await front((path) => ({ url: new URL(`http://127.0.0.1:${up}${path}`), dropHeaders: ['authorization'], setHeaders: { 'x-remote-user': 'alice' } }));
  const r = await get(port, '/apis/x?watch=1', { authorization: 'Bearer secret', 'x-remote-user': 'mallory' }, 'hello', (received) => {
    if (received === '{"a":') firstPieceReceived(true);
  });
  assert.equal(await streamed, true, 'the first piece reached the client before the upstream ended');
  assert.equal(r.status, 201);
  assert.equal(r.body, '{"a":1}');
  assert.equal(r.headers['x-up'], '1');
  assert.deepEqual(seen, [{ method: 'POST', url: '/apis/x?watch=1', body: 'hello', remote: 'alice', auth: undefined }]);
});

test('an upstream that cannot be reached is an UpstreamError before anything is written', async () => {
  const closed = createServer();
  const deadPort = await listen(closed);
  await new Promise<void>((r) => closed.close(() => r()));
  const port = await front((path) => ({ url: new URL(`http://127.0.0.1:${deadPort}${path}`) }));
  const r = await get(port, '/x');
  assert.equal(r.status, 503);
  assert.match(r.body, /^upstream: connect ECONNREFUSED/);
  await assert.rejects(proxyRequest({ method: 'GET', headers: {} } as never, {} as never, { url: new URL('ftp://x/') }), UpstreamError);
});

test('an upgrade joins the two sockets; a refused upgrade passes the refusal through', async () => {
  const up = createServer((_req, res) => {
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('no upgrade for you');
  });
  up.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    if (req.url === '/refuse') {
      socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 4\r\n\r\nnope');
      return;
    }
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(d.toString().toUpperCase()));
    socket.on('end', () => socket.end());
  });
  const upPort = await listen(up);
  const port = await front((path) => ({ url: new URL(`http://127.0.0.1:${upPort}${path}`) }));
  const echoed = await new Promise<string>((resolve, reject) => {
    const r = request({ agent: false, port, host: '127.0.0.1', path: '/echo', headers: { connection: 'Upgrade', upgrade: 'echo' } });
    r.on('upgrade', (res, socket: Socket) => {
      assert.equal(res.statusCode, 101);
      socket.on('data', (d: Buffer) => {
        resolve(d.toString());
        socket.destroy();
      });
      socket.write('ping');
    });
    r.on('error', reject);
    r.end();
  });
  assert.equal(echoed, 'PING');
  const refused = await new Promise<number>((resolve, reject) => {
    const r = request({ agent: false, port, host: '127.0.0.1', path: '/refuse', headers: { connection: 'Upgrade', upgrade: 'echo' } });
    r.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    r.on('upgrade', () => reject(new Error('upgraded')));
    r.on('error', reject);
    r.end();
  });
  assert.equal(refused, 400);
});
