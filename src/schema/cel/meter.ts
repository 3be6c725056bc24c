// The actual cost of one evaluation. The static bound, recomputed with the request's sizes,
// is checked before an expression runs; but a call's work can depend on values no size
// foretells (the program of a pattern held in a field, the number of matches, the length of
// what `replace` builds), so the library functions charge their work here as they go, before
// doing it, and a charge past the per-call limit cancels the evaluation as cel-go's cost
// tracker does. The evaluator interprets slower than cel-go's units assume, so the meter also
// keeps a deadline, checked wherever the evaluation reads the object (every element of every
// comprehension over it) or calls the library: the last bound on how long one expression
// holds the event loop. Evaluation is synchronous: one meter is active at a time.

import { celLib } from './runtime.js';

export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

/** The longest one evaluation may run, in milliseconds. */
export const EVALUATION_DEADLINE_MS = 100;

/**
 * The longest the evaluations of one request may run together: as many deadlines as the
 * runtime budget holds per-call limits (10), after which the budget counts as spent.
 */
export const REQUEST_DEADLINE_MS = 10 * EVALUATION_DEADLINE_MS;

/** How many reads pass between two looks at the clock. */
const READS_PER_CLOCK_CHECK = 128;

interface Meter {
  limit: number;
  spent: number;
  deadline: number;
  reads: number;
  exceeded: boolean;
}

let active: Meter | undefined;

// One error for every cancellation, already the evaluator's: a comprehension that absorbs
// errors (`exists`) would otherwise build and merge a new one, with its stack, per element.
let cancelled: Error | undefined;

function cancel(m: Meter): never {
  m.exceeded = true;
  throw (cancelled ??= celLib().celError(COST_LIMIT_EXCEEDED));
}

/**
 * Charges `units` to the running evaluation; throws (an evaluation error carrying cel-go's
 * message) when the evaluation's limit or deadline is passed. Outside an evaluation nothing
 * is charged.
 */
export function charge(units: number): void {
  const m = active;
  if (!m) return;
  m.spent += units;
  if (m.exceeded || m.spent > m.limit || performance.now() > m.deadline) cancel(m);
}

/** Counts a read of the object; every so often, looks at the deadline. */
export function tick(): void {
  const m = active;
  if (!m) return;
  if (m.exceeded) cancel(m);
  if (++m.reads % READS_PER_CLOCK_CHECK === 0 && performance.now() > m.deadline) cancel(m);
}

/**
 * Runs `fn` with a meter of `limit` units. `exceeded` is true when a charge passed the limit
 * or the deadline, even if the expression absorbed the error (`true || x.matches(p)`): the
 * evaluation is then cancelled as a whole.
 */
export function metered<T>(limit: number, fn: () => T): { result: T; spent: number; exceeded: boolean } {
  const outer = active;
  const m: Meter = { limit, spent: 0, deadline: performance.now() + EVALUATION_DEADLINE_MS, reads: 0, exceeded: false };
  active = m;
  try {
    const result = fn();
    return { result, spent: m.spent, exceeded: m.exceeded };
  } finally {
    active = outer;
  }
}
