/**
 * A row lent to by a better row (a log line beside a hit, a row sharing a seed's rare words) joins
 * it, not passes it: what it was lent takes it at most to just below its best lender. Without this,
 * lines of chit-chat lent to each other and a repeat of a seed rose above the right answer
 * (docs/retrieval.md, "Spreading along a log" and "Second hop").
 */

/** A row lent to ends at most this share of its best lender's score: just below it. */
export const BELOW_LENDER = 0.999;

/** `base` plus `loan`, the loan taking it at most to just below `lender` (never below `base`). */
export function liftBelowLender(base: number, loan: number, lender: number): number {
  return base + Math.min(loan, Math.max(0, lender * BELOW_LENDER - base));
}
