// The worker side of the YAML pool: reads one document at a time and answers with its JSON
// text (which keeps int64 integers and `__proto__` keys exactly), or with why it failed.
import { parentPort } from 'node:worker_threads';
import { isApiError } from '../apimachinery/errors.js';
import { stringifyJson } from './json.js';
import type { YamlJob, YamlAnswer } from './yaml-pool.js';
import { readYaml, YamlSyntaxError } from './yaml.js';

const encoder = new TextEncoder();

parentPort?.on('message', (job: YamlJob) => {
  let answer: YamlAnswer;
  try {
    const json = encoder.encode(stringifyJson(readYaml(job.text)));
    answer = { id: job.id, json };
    parentPort!.postMessage(answer, [json.buffer]);
    return;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    answer = { id: job.id, error: { message, syntax: e instanceof YamlSyntaxError, status: isApiError(e) ? { code: e.code, reason: e.reason } : undefined } };
  }
  parentPort!.postMessage(answer);
});
