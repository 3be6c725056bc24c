// /livez, /readyz and /healthz in kube-apiserver's format: `ok`, or with `verbose` one
// `[+]<check> ok` line per check and `<endpoint> check passed`; a failing check makes the
// answer 500 and always verbose. `exclude=<name>` skips a check; `/<endpoint>/<name>`
// runs one check alone.

export interface HealthCheck {
  name: string;
  /** Listed after every other check (kube-apiserver lists `shutdown` last). */
  last?: boolean;
  /** Throws (or rejects) when unhealthy; the message goes to the log, not to the client. */
  check(): void | Promise<void>;
}

export interface HealthAnswer {
  code: number;
  body: string;
}

export type HealthEndpoint = 'livez' | 'readyz' | 'healthz';

/** A start-up hook: healthy once it has completed. Within the grace period livez trusts it. */
export class PostStartHook implements HealthCheck {
  private done = false;
  private failure: unknown;
  readonly name: string;

  constructor(hookName: string) {
    this.name = `poststarthook/${hookName}`;
  }

  complete(): void {
    this.done = true;
  }

  fail(err: unknown): void {
    this.failure = err;
  }

  check(): void {
    if (this.failure !== undefined) throw this.failure instanceof Error ? this.failure : new Error(String(this.failure));
    if (!this.done) throw new Error('not finished');
  }
}

/** Wraps a check so that it passes until `graceUntil` (kube's --livez-grace-period). */
export function withGracePeriod(check: HealthCheck, graceUntil: () => number): HealthCheck {
  return {
    name: check.name,
    async check() {
      if (Date.now() < graceUntil()) return;
      await check.check();
    },
  };
}

export class HealthChecks {
  private readonly endpoints: Record<HealthEndpoint, HealthCheck[]> = { livez: [], readyz: [], healthz: [] };

  add(endpoints: HealthEndpoint[], check: HealthCheck): void {
    for (const e of endpoints) {
      const list = this.endpoints[e];
      const firstLast = check.last ? -1 : list.findIndex((c) => c.last);
      if (firstLast < 0) list.push(check);
      else list.splice(firstLast, 0, check);
    }
  }

  names(endpoint: HealthEndpoint): string[] {
    return this.endpoints[endpoint].map((c) => c.name);
  }

  /**
   * Answers `/<endpoint>` (check undefined) or `/<endpoint>/<check>`. Undefined when the
   * named check does not exist (a 404).
   */
  async answer(endpoint: HealthEndpoint, checkName: string | undefined, query: URLSearchParams): Promise<HealthAnswer | undefined> {
    const checks = this.endpoints[endpoint];
    if (checkName !== undefined) {
      const c = checks.find((x) => x.name === checkName);
      if (!c) return undefined;
      try {
        await c.check();
        return { code: 200, body: 'ok' };
      } catch (e) {
        return { code: 500, body: `internal server error: ${e instanceof Error ? e.message : String(e)}\n` };
      }
    }
    const excluded = new Set(query.getAll('exclude'));
    let out = '';
    let failed = false;
    for (const c of checks) {
      if (excluded.has(c.name)) {
        excluded.delete(c.name);
        out += `[+]${c.name} excluded: ok\n`;
        continue;
      }
      try {
        await c.check();
        out += `[+]${c.name} ok\n`;
      } catch {
        failed = true;
        // The reason stays out of the public answer, as in Kubernetes.
        out += `[-]${c.name} failed: reason withheld\n`;
      }
    }
    if (excluded.size > 0) {
      const names = [...excluded].sort().map((n) => JSON.stringify(n)).join(', ');
      out += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
    }
    if (failed) return { code: 500, body: `${out}${endpoint} check failed\n` };
    if (!query.has('verbose')) return { code: 200, body: 'ok' };
    return { code: 200, body: `${out}${endpoint} check passed\n` };
  }
}
