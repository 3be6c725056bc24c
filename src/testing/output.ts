// Catches what the process would print while `work` runs (stderr, console.warn, process
// warnings, which arrive a tick later), for tests asserting that nothing leaks to the log.
export async function printedDuring(work: () => unknown): Promise<string[]> {
  const printed: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  const warn = console.warn;
  const onWarning = (w: Error): void => void printed.push(w.message);
  process.stderr.write = ((chunk: string | Uint8Array) => printed.push(String(chunk)) > 0) as typeof process.stderr.write;
  console.warn = (...args: unknown[]) => void printed.push(args.join(' '));
  process.on('warning', onWarning);
  try {
    await work();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.stderr.write = write;
    console.warn = warn;
    process.off('warning', onWarning);
  }
  return printed;
}
