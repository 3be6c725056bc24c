// The actual cost of one evaluation's library calls. The static bound, recomputed with the
// request's sizes, is checked before an expression runs; but a call's work can depend on
// values no size foretells (the program of a pattern held in a field, the number of matches,
// the length of what `replace` builds), so the library functions charge their work here as
// they go, before doing it, and a charge past the per-call limit cancels the evaluation as
// cel-go's cost tracker does. Evaluation is synchronous: one meter is active at a time.

export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

interface Meter {
  limit: number;
  spent: number;
  exceeded: boolean;
}

let active: Meter | undefined;

/**
 * Charges `units` to the running evaluation; throws (an evaluation error carrying cel-go's
 * message) when the evaluation's limit is passed. Outside an evaluation nothing is charged.
 */
export function charge(units: number): void {
  const m = active;
  if (!m) return;
  m.spent += units;
  if (m.spent > m.limit) {
    m.exceeded = true;
    throw new Error(COST_LIMIT_EXCEEDED);
  }
}

/**
 * Runs `fn` with a meter of `limit` units. `exceeded` is true when a charge passed the limit,
 * even if the expression absorbed the error (`true || x.matches(p)`): the evaluation is then
 * cancelled as a whole.
 */
export function metered<T>(limit: number, fn: () => T): { result: T; spent: number; exceeded: boolean } {
  const outer = active;
  const m: Meter = { limit, spent: 0, exceeded: false };
  active = m;
  try {
    const result = fn();
    return { result, spent: m.spent, exceeded: m.exceeded };
  } finally {
    active = outer;
  }
}
