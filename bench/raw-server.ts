// The baseline of `npm run bench`: a raw node:https server on loopback, started by the bench as
// `node raw-server.js <dir> <port>`. It imports nothing of the project, so that its start-up
// is that of a trivial HTTPS server. It answers:
//   GET /readyz: 200 ok.
//   GET of a list fixture: JSON.stringify of the parsed list, per request (the same bytes the
//     API server answered, built each time as a server that holds the objects would).
//   other GETs: the recorded bytes of one object.
//   POST: the recorded create answer's bytes (the create baseline is SQLite alone, in
//     sqlite-baseline.ts).
//   GET /watch (HTTP/1.1 here, or HTTP/2 on the second port) and POST /emit: a fan-out of the
//     posted line to every watcher.
import https from 'node:https';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RawFixtures {
  get: string;
  create: string;
  /** Request path to the file of the API server's answer. */
  lists: Record<string, string>;
}

function main(dir: string, port: number, h2Port: number): void {
  const fixtures = JSON.parse(readFileSync(join(dir, 'fixtures.json'), 'utf8')) as RawFixtures;
  const body = (file: string): Buffer => readFileSync(join(dir, file));
  const getBytes = body(fixtures.get);
  const createBytes = body(fixtures.create);
  // The parsed list, and what the API server wrote after the JSON (a newline), so that the bytes are the same.
  const lists = new Map<string, { list: unknown; tail: string }>(
    Object.entries(fixtures.lists).map(([path, file]) => {
      const text = body(file).toString();
      return [path, { list: JSON.parse(text), tail: text.slice(text.trimEnd().length) }];
    }),
  );
  const watchers = new Set<{ write(line: Buffer): unknown }>();
  const tls = { cert: readFileSync(join(dir, 'tls.crt')), key: readFileSync(join(dir, 'tls.key')) };
  const server = https.createServer(tls, (req, res) => {
    const url = req.url ?? '/';
    const send = (code: number, bytes: Buffer | string): void => {
      res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(bytes) });
      res.end(bytes);
    };
    if (url === '/readyz') return send(200, 'ok');
    if (url.startsWith('/watch')) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      watchers.add(res);
      res.on('close', () => watchers.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (url === '/emit') {
        const line = Buffer.concat(chunks);
        for (const w of watchers) w.write(line);
        return send(201, createBytes);
      }
      if (req.method === 'POST') return send(201, createBytes);
      const list = lists.get(url);
      if (list !== undefined) return send(200, JSON.stringify(list.list) + list.tail);
      send(200, getBytes);
    });
  });
  server.keepAliveTimeout = 60_000;
  // Watches over HTTP/2, as the API server's are measured: the same streams, nothing else.
  const h2 = http2.createSecureServer({ ...tls, settings: { maxConcurrentStreams: 1000 } });
  h2.on('stream', (stream, headers) => {
    if (headers[':path'] !== '/watch') {
      stream.respond({ ':status': 404 });
      stream.end();
      return;
    }
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
    watchers.add(stream);
    stream.on('close', () => watchers.delete(stream));
    stream.on('error', () => {});
  });
  h2.on('sessionError', () => {});
  let listening = 0;
  const ready = (): void => {
    if (++listening === 2) process.stdout.write('ready\n');
  };
  server.listen(port, '127.0.0.1', ready);
  h2.listen(h2Port, '127.0.0.1', ready);
  process.on('SIGTERM', () => process.exit(0));
}

main(process.argv[2]!, Number(process.argv[3]), Number(process.argv[4]));
