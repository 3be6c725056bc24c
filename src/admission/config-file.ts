// The admission configuration file (`--admission-control-config-file`): an
// AdmissionConfiguration listing per-plugin settings, inline or in a file of their own.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import { isPlainObject } from '../apimachinery/types.js';
import { group } from '../naming/index.js';

export class AdmissionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdmissionConfigError';
  }
}

/** Plugin name to its configuration object. */
export type AdmissionPluginConfigs = Map<string, Record<string, unknown>>;

const VERSIONS = ['v1', 'v1alpha1'];

function readDocument(text: string, source: string): unknown {
  try {
    // Never logs: a warning quotes its source line, which may hold a credential.
    return parse(text, { logLevel: 'silent' });
  } catch (e) {
    throw new AdmissionConfigError(`unable to read admission control configuration from "${source}": ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Parses the configuration text; `baseDir` resolves the plugins' relative `path`s. */
export function parseAdmissionConfig(text: string, source: string, baseDir: string): AdmissionPluginConfigs {
  const doc = readDocument(text, source);
  if (!isPlainObject(doc)) throw new AdmissionConfigError(`unable to read admission control configuration from "${source}": not a mapping`);
  const accepted = VERSIONS.map((v) => `${group('apiserver.config')}/${v}`);
  if (doc.kind !== 'AdmissionConfiguration' || typeof doc.apiVersion !== 'string' || !accepted.includes(doc.apiVersion)) {
    throw new AdmissionConfigError(
      `unable to read admission control configuration from "${source}": expected kind AdmissionConfiguration in ${accepted.join(' or ')}`,
    );
  }
  const configs: AdmissionPluginConfigs = new Map();
  const plugins = doc.plugins ?? [];
  if (!Array.isArray(plugins)) throw new AdmissionConfigError(`"${source}": plugins must be a list`);
  for (const entry of plugins) {
    if (!isPlainObject(entry) || typeof entry.name !== 'string' || entry.name === '') {
      throw new AdmissionConfigError(`"${source}": every plugin entry needs a name`);
    }
    let configuration: unknown = entry.configuration;
    if (typeof entry.path === 'string' && entry.path !== '') {
      const path = isAbsolute(entry.path) ? entry.path : resolve(baseDir, entry.path);
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (e) {
        throw new AdmissionConfigError(`unable to read configuration of admission plugin ${entry.name} from "${path}": ${e instanceof Error ? e.message : String(e)}`);
      }
      configuration = readDocument(text, path);
    }
    configs.set(entry.name, isPlainObject(configuration) ? configuration : {});
  }
  return configs;
}

export function readAdmissionConfig(path: string): AdmissionPluginConfigs {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new AdmissionConfigError(`unable to read admission control configuration from "${path}": ${e instanceof Error ? e.message : String(e)}`);
  }
  return parseAdmissionConfig(text, path, dirname(resolve(path)));
}
