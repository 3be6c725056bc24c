// The `history` group of `npm run bench`: create throughput with the object history on (the
// default retention) against the same server with `--history-retention=0`. Runs go off, on,
// on, off, so that drift in the machine's load falls on both alike. The goal: no more than 5%
// lower with history on.

/** What the benchmark's runner lends this group. */
export interface HistoryBenchDeps {
  /** The server's flags of the benchmark. */
  serverArgs: string[];
  /** Creates per second (~1 KB ConfigMaps from 64 clients) of a server started with `args`, in a namespace of its own. */
  createRate(args: string[], label: string, namespace: string): Promise<number>;
  row(figure: string, value: number, baseline: number, unit: string, higherIsBetter: boolean, opts: { goal?: { on: 'ratio'; op: '>='; limit: number }; baselineName?: string }): void;
  log(line: string): void;
}

export async function historyCreates(deps: HistoryBenchDeps): Promise<void> {
  const rates = { off: 0, on: 0 };
  for (const [run, mode] of (['off', 'on', 'on', 'off'] as const).entries()) {
    const args = mode === 'on' ? [...deps.serverArgs, '--history-retention=1h,50'] : [...deps.serverArgs, '--history-retention=0'];
    const rps = await deps.createRate(args, `history ${mode}`, `history-${mode}-${run}`);
    deps.log(`  history ${mode}: ${rps.toFixed(0)} req/s`);
    rates[mode] += rps / 2;
  }
  deps.row('create with object history on, req/s (vs off)', rates.on, rates.off, 'req/s', true, { baselineName: 'history off', goal: { on: 'ratio', op: '>=', limit: 0.95 } });
}
