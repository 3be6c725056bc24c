// Bundles the compiled server (tsc's output under dist/src) into dist/bundle, so that the
// command-line programs load a few files instead of some six hundred modules: Node's module
// loading (resolving, reading, compiling, linking each file) was most of start-up. The
// library and the tests keep using dist/src, unbundled.
//
// Layout: every entry point and shared chunk sits flat in dist/bundle. The worker threads
// are entry points of their own with the same file names as beside their callers in
// dist/src, so `new URL('./sqlite-worker.js', import.meta.url)` finds its file in both
// layouts; the schema catalog and the API surface data are found from either
// (src/apimachinery/data-file.ts looks up the tree). Dynamic imports (the server behind the flags, x509) become chunks loaded when used.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const outdir = `${root}dist/bundle`;

/**
 * npm packages left to node_modules: the native better-sqlite3; etcd3, loaded only for the
 * etcd backend, which reads its gRPC definitions from its own folder; the CEL packages,
 * loaded with `require` on first use (src/schema/cel/runtime.ts), which a bundler cannot
 * see. The other packages are bundled: loading yaml, jose, prom-client and cron-parser as
 * modules cost a third of the import. @peculiar/x509 must be: its chunk, loaded only to
 * issue certificates, installs the Reflect API it needs before evaluating it, an order an
 * external package would not keep (its import would be evaluated before the chunk's code).
 */
const external = ['better-sqlite3', 'etcd3', '@bufbuild/*'];

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: [
    { in: 'dist/src/cli/apiserver.js', out: 'apiserver' },
    { in: 'dist/src/cli/controller-manager.js', out: 'controller-manager' },
    { in: 'dist/src/cli/scheduler.js', out: 'scheduler' },
    // The server behind the flags, which the entry point imports once they are parsed: an
    // entry point of its own so that it has a stable name.
    { in: 'dist/src/cli/server.js', out: 'server' },
    { in: 'dist/src/storage/sqlite-worker.js', out: 'sqlite-worker' },
    { in: 'dist/src/storage/etcd-worker.js', out: 'etcd-worker' },
    { in: 'dist/src/codec/yaml-worker.js', out: 'yaml-worker' },
  ],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // Bundled CommonJS packages (prom-client) call `require` for Node's own modules, which an
  // ES module does not have.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  chunkNames: 'chunk-[hash]',
  // Stack traces need the mappings only (node --enable-source-maps); the sources are not shipped.
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
});

// The web console: the browser app (src/console/app, TypeScript with the DOM library, type
// checked by its own tsconfig) bundled into one script beside its page and style sheet, in
// dist/console-app, which the server reads at start and serves at /ui/. Nothing is fetched
// from elsewhere at run time (the Content Security Policy allows this origin only).
const consoleOut = `${root}dist/console-app`;
rmSync(consoleOut, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: [{ in: 'src/console/app/main.ts', out: 'app' }],
  outdir: consoleOut,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox111', 'safari16.4'],
  minify: true,
  sourcemap: false,
  legalComments: 'external',
  logLevel: 'warning',
});
mkdirSync(consoleOut, { recursive: true });
for (const f of ['index.html', 'app.css']) copyFileSync(`${root}src/console/app/${f}`, `${consoleOut}/${f}`);
