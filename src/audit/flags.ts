// The audit flags, named and defaulted as kube-apiserver's, and the Auditor they build. As in
// kube-apiserver, nothing is audited without a policy file, and a backend's options are
// checked only when the backend is on (`--audit-log-path`, `--audit-webhook-config-file`).
import { realClock, type Clock } from '../apimachinery/clock.js';
import type { FlagDefinition, ParsedFlags } from '../apimachinery/flags.js';
import { fromKubernetesApiVersion } from '../naming/index.js';
import { Auditor } from './auditor.js';
import { BACKEND_MODES, UnionBackend, withMode, type AuditBackend, type BackendMode, type BatchConfig } from './backend.js';
import { eventApiVersion } from './event.js';
import { LOG_FORMATS, LogBackend, RotatingFile, StdoutWriter, type LogFormat } from './log.js';
import { AuditMetrics } from './metrics.js';
import { loadPolicyFile } from './policy.js';
import { loadWebhookConfig, WebhookBackend } from './webhook.js';

type Plugin = 'log' | 'webhook';

const BATCH_DEFAULTS: Record<Plugin, { mode: BackendMode; batch: Omit<BatchConfig, 'asyncDelegate'> }> = {
  log: { mode: 'blocking', batch: { bufferSize: 10000, maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: false, throttleQPS: 0, throttleBurst: 0 } },
  webhook: { mode: 'batch', batch: { bufferSize: 10000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttleEnable: true, throttleQPS: 10, throttleBurst: 15 } },
};

function batchFlags(plugin: Plugin): FlagDefinition[] {
  const d = BATCH_DEFAULTS[plugin];
  return [
    {
      name: `audit-${plugin}-mode`,
      type: 'string',
      default: d.mode,
      usage: `Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are ${BACKEND_MODES.join(',')}.`,
    },
    { name: `audit-${plugin}-batch-buffer-size`, type: 'int', default: d.batch.bufferSize, usage: 'The size of the buffer to store events before batching and writing. Only used in batch mode.' },
    { name: `audit-${plugin}-batch-max-size`, type: 'int', default: d.batch.maxBatchSize, usage: 'The maximum size of a batch. Only used in batch mode.' },
    { name: `audit-${plugin}-batch-max-wait`, type: 'duration', default: d.batch.maxBatchWaitMs, usage: 'The amount of time to wait before force writing the batch that hadn\'t reached the max size. Only used in batch mode.' },
    { name: `audit-${plugin}-batch-throttle-enable`, type: 'boolean', default: d.batch.throttleEnable, usage: 'Whether batching throttling is enabled. Only used in batch mode.' },
    { name: `audit-${plugin}-batch-throttle-qps`, type: 'string', default: String(d.batch.throttleQPS), usage: 'Maximum average number of batches per second. Only used in batch mode.' },
    {
      name: `audit-${plugin}-batch-throttle-burst`,
      type: 'int',
      default: d.batch.throttleBurst,
      usage: 'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.',
    },
    { name: `audit-${plugin}-truncate-enabled`, type: 'boolean', default: false, usage: 'Whether event and batch truncating is enabled (not supported by this server: true is refused).' },
    {
      name: `audit-${plugin}-truncate-max-batch-size`,
      type: 'int',
      default: 10 * 1024 * 1024,
      usage: 'Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater.',
    },
    { name: `audit-${plugin}-truncate-max-event-size`, type: 'int', default: 100 * 1024, usage: 'Maximum size of the audit event sent to the underlying backend.' },
    { name: `audit-${plugin}-version`, type: 'string', usage: 'API group and version used for serializing audit events (audit.<domain>/v1, the only one served).' },
  ];
}

export const auditFlagDefinitions: FlagDefinition[] = [
  { name: 'audit-policy-file', type: 'string', usage: 'Path to the file that defines the audit policy configuration.' },
  { name: 'audit-log-path', type: 'string', usage: "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out." },
  { name: 'audit-log-maxage', type: 'int', default: 0, usage: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.' },
  { name: 'audit-log-maxbackup', type: 'int', default: 0, usage: "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files." },
  { name: 'audit-log-maxsize', type: 'int', default: 0, usage: 'The maximum size in megabytes of the audit log file before it gets rotated.' },
  {
    name: 'audit-log-format',
    type: 'string',
    default: 'json',
    usage: `Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are ${LOG_FORMATS.join(',')}.`,
  },
  { name: 'audit-log-compress', type: 'boolean', default: false, usage: 'If set, the rotated log files will be compressed using gzip.' },
  ...batchFlags('log'),
  { name: 'audit-webhook-config-file', type: 'string', usage: 'Path to a kubeconfig formatted file that defines the audit webhook configuration.' },
  { name: 'audit-webhook-initial-backoff', type: 'duration', default: 10_000, usage: 'The amount of time to wait before retrying the first failed request.' },
  { name: 'audit-webhook-batch-initial-backoff', type: 'duration', usage: 'The amount of time to wait before retrying the first failed request. (DEPRECATED: use --audit-webhook-initial-backoff)' },
  ...batchFlags('webhook'),
];

export class AuditConfigError extends Error {}

function groupVersion(flags: ParsedFlags, plugin: Plugin): string {
  const served = eventApiVersion();
  const asked = flags.string(`audit-${plugin}-version`);
  if (asked === undefined || asked === served || fromKubernetesApiVersion(asked) === served) return served;
  throw new AuditConfigError(`--audit-${plugin}-version: invalid group version, allowed versions are "[${served}]"`);
}

function batchOptions(flags: ParsedFlags, plugin: Plugin): { mode: BackendMode; batch: BatchConfig } {
  const mode = flags.string(`audit-${plugin}-mode`) ?? BATCH_DEFAULTS[plugin].mode;
  if (!(BACKEND_MODES as readonly string[]).includes(mode)) {
    throw new AuditConfigError(`--audit-${plugin}-mode: invalid audit ${plugin} mode ${mode}, allowed modes are "${BACKEND_MODES.join(',')}"`);
  }
  const d = BATCH_DEFAULTS[plugin].batch;
  const qpsText = flags.string(`audit-${plugin}-batch-throttle-qps`) ?? String(d.throttleQPS);
  const qps = Number(qpsText);
  if (qpsText.trim() === '' || !Number.isFinite(qps)) throw new AuditConfigError(`--audit-${plugin}-batch-throttle-qps: invalid argument "${qpsText}": expected a number`);
  const batch: BatchConfig = {
    bufferSize: flags.number(`audit-${plugin}-batch-buffer-size`) ?? d.bufferSize,
    maxBatchSize: flags.number(`audit-${plugin}-batch-max-size`) ?? d.maxBatchSize,
    maxBatchWaitMs: flags.number(`audit-${plugin}-batch-max-wait`) ?? d.maxBatchWaitMs,
    throttleEnable: flags.boolean(`audit-${plugin}-batch-throttle-enable`) ?? d.throttleEnable,
    throttleQPS: qps,
    throttleBurst: flags.number(`audit-${plugin}-batch-throttle-burst`) ?? d.throttleBurst,
    asyncDelegate: plugin === 'webhook',
  };
  if (mode === 'batch') {
    if (batch.bufferSize <= 0) throw new AuditConfigError(`invalid audit batch ${plugin} buffer size ${batch.bufferSize}, must be a positive number`);
    if (batch.maxBatchSize <= 0) throw new AuditConfigError(`invalid audit batch ${plugin} max batch size ${batch.maxBatchSize}, must be a positive number`);
    if (batch.bufferSize > 10_000_000) throw new AuditConfigError(`--audit-${plugin}-batch-buffer-size: ${batch.bufferSize} is more than this server buffers (10000000)`);
    if (batch.throttleEnable) {
      if (batch.throttleQPS <= 0) throw new AuditConfigError(`invalid audit batch ${plugin} throttle QPS ${batch.throttleQPS}, must be a positive number`);
      if (batch.throttleBurst <= 0) throw new AuditConfigError(`invalid audit batch ${plugin} throttle burst ${batch.throttleBurst}, must be a positive number`);
    }
  }
  if (flags.boolean(`audit-${plugin}-truncate-enabled`) === true) {
    throw new AuditConfigError(`--audit-${plugin}-truncate-enabled: event truncation is not supported by this server`);
  }
  return { mode: mode as BackendMode, batch };
}

export interface AuditSetup {
  log?: (line: string) => void;
  clock?: Clock;
}

/**
 * The auditor the flags describe, or undefined when nothing is audited (no policy file, or no
 * backend). Bad values and unreadable files throw, naming the flag or file.
 */
export function auditorFromFlags(flags: ParsedFlags, setup: AuditSetup = {}): Auditor | undefined {
  const clock = setup.clock ?? realClock;
  const metrics = new AuditMetrics();
  const backends: AuditBackend[] = [];
  let strict = false;

  const logPath = flags.string('audit-log-path') ?? '';
  let logBackend: (() => AuditBackend) | undefined;
  if (logPath !== '') {
    const { mode, batch } = batchOptions(flags, 'log');
    const apiVersion = groupVersion(flags, 'log');
    const format = flags.string('audit-log-format') ?? 'json';
    if (!(LOG_FORMATS as readonly string[]).includes(format)) throw new AuditConfigError(`invalid audit log format ${format}, allowed formats are "${LOG_FORMATS.join(',')}"`);
    const maxAge = flags.number('audit-log-maxage') ?? 0;
    const maxBackups = flags.number('audit-log-maxbackup') ?? 0;
    const maxSize = flags.number('audit-log-maxsize') ?? 0;
    if (maxAge < 0) throw new AuditConfigError(`--audit-log-maxage ${maxAge} can't be a negative number`);
    if (maxBackups < 0) throw new AuditConfigError(`--audit-log-maxbackup ${maxBackups} can't be a negative number`);
    if (maxSize < 0) throw new AuditConfigError(`--audit-log-maxsize ${maxSize} can't be a negative number`);
    strict ||= mode === 'blocking-strict';
    logBackend = () => {
      let writer;
      try {
        writer =
          logPath === '-'
            ? new StdoutWriter()
            : new RotatingFile(logPath, { maxBytes: maxSize * 1024 * 1024, maxBackups, maxAgeDays: maxAge, compress: flags.boolean('audit-log-compress') ?? false }, clock, (e, lines) => {
                metrics.error('log', lines);
                setup.log?.(`Error in audit plugin 'log' affecting ${lines} audit events: ${e.message}`);
              });
      } catch (e) {
        throw new AuditConfigError(`--audit-log-path: ensureLogFile: ${e instanceof Error ? e.message : String(e)}`);
      }
      return withMode(new LogBackend(writer, format as LogFormat, metrics, apiVersion, setup.log), mode, batch, metrics, clock);
    };
  }

  const webhookFile = flags.string('audit-webhook-config-file') ?? '';
  let webhookBackend: (() => AuditBackend) | undefined;
  if (webhookFile !== '') {
    const { mode, batch } = batchOptions(flags, 'webhook');
    const apiVersion = groupVersion(flags, 'webhook');
    const backoff = flags.number('audit-webhook-batch-initial-backoff') ?? flags.number('audit-webhook-initial-backoff') ?? 10_000;
    if (backoff < 0) throw new AuditConfigError(`--audit-webhook-initial-backoff: must not be negative`);
    const config = loadWebhookConfig(webhookFile);
    strict ||= mode === 'blocking-strict';
    webhookBackend = () => withMode(new WebhookBackend(config, { initialBackoffMs: backoff, apiVersion, log: setup.log }, metrics, clock), mode, batch, metrics, clock);
  }

  const policyFile = flags.string('audit-policy-file') ?? '';
  if (policyFile === '') return undefined;
  const policy = loadPolicyFile(policyFile, setup.log);
  if (logBackend) backends.push(logBackend());
  if (webhookBackend) backends.push(webhookBackend());
  if (backends.length === 0) return undefined;
  return new Auditor(policy, backends.length === 1 ? backends[0]! : new UnionBackend(backends), metrics, strict);
}
