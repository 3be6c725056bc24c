// The flags the server itself owns, named as kube-apiserver names them. The entry point
// merges them with the flags of the auth and admission modules.
import type { FlagDefinition } from '../apimachinery/flags.js';
import { serviceFlagDefinitions } from '../registry/services/index.js';

export const serverFlagDefinitions: FlagDefinition[] = [
  { name: 'help', type: 'boolean', default: false, usage: 'Print the flags and exit.' },
  { name: 'version', type: 'boolean', default: false, usage: 'Print the version and exit.' },
  { name: 'data-dir', type: 'string', default: './.orch', usage: 'Directory holding the database, the PKI and the admin kubeconfig.' },
  { name: 'storage-backend', type: 'string', default: 'sqlite', usage: 'Storage backend: sqlite (embedded, in the data directory), etcd (--etcd-servers) or memory.' },
  { name: 'etcd-servers', type: 'stringList', default: [], usage: 'List of etcd servers to connect with (scheme://ip:port), comma separated; for --storage-backend etcd.' },
  { name: 'etcd-prefix', type: 'string', default: '', usage: 'A prefix put before every key in etcd (the keys themselves begin with /registry), so several clusters can share one etcd.' },
  { name: 'etcd-cafile', type: 'string', usage: 'SSL Certificate Authority file used to secure etcd communication.' },
  { name: 'etcd-certfile', type: 'string', usage: 'SSL certification file used to secure etcd communication.' },
  { name: 'etcd-keyfile', type: 'string', usage: 'SSL key file used to secure etcd communication.' },
  { name: 'bind-address', type: 'string', default: '127.0.0.1', usage: 'The IP address on which to listen for the --secure-port port.' },
  { name: 'secure-port', type: 'int', default: 6443, usage: 'The port on which to serve HTTPS with authentication and authorization (0 picks a free port).' },
  { name: 'tls-cert-file', type: 'string', usage: 'File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert). Defaults to one generated in the data directory.' },
  { name: 'tls-private-key-file', type: 'string', usage: 'File containing the default x509 private key matching --tls-cert-file.' },
  { name: 'compat', type: 'string', default: 'orch', usage: 'Naming flavor: orch (the product identifiers) or kubernetes (the stock Kubernetes identifiers).' },
  { name: 'runtime-config', type: 'string', default: '', usage: 'A set of key=value pairs that enable or disable built-in APIs: <group>/<version>[=true|false], <group>/<version>/<resource>[=true|false].' },
  { name: 'shutdown-delay-duration', type: 'duration', default: 0, usage: 'Time to delay the termination. During that time /readyz fails while the server keeps serving.' },
  { name: 'livez-grace-period', type: 'duration', default: 0, usage: 'The time from start during which /livez assumes that unfinished post-start hooks will complete successfully.' },
  { name: 'max-requests-inflight', type: 'int', default: 400, usage: 'The maximum number of non-mutating requests in flight at a given time.' },
  { name: 'max-mutating-requests-inflight', type: 'int', default: 200, usage: 'The maximum number of mutating requests in flight at a given time.' },
  { name: 'request-timeout', type: 'duration', default: 60_000, usage: 'The duration a handler must keep a request open before timing it out (watches excepted).' },
  { name: 'min-request-timeout', type: 'int', default: 1800, usage: 'The minimum number of seconds a watch lasts when the client sets no timeoutSeconds (it lasts up to twice that).' },
  { name: 'http2-max-streams-per-connection', type: 'int', default: 1000, usage: "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default (250)." },
  { name: 'etcd-compaction-interval', type: 'duration', default: 60_000, usage: 'The interval of compaction requests to the store.' },
  {
    name: 'max-object-size-bytes',
    type: 'int',
    default: 1572864,
    usage: "The largest encoded object a write may store (etcd's default request limit, 1.5 MiB); larger writes fail as they do against etcd.",
  },
  { name: 'watch-history-window', type: 'duration', default: 300_000, usage: 'How long watch history (and continue tokens) stay usable.' },
  ...serviceFlagDefinitions,
];
