/** A credit that fits a paid payout (same currency and amount, value date in its window). */
export type DepositCandidate = {
  payoutId: string;
  lineId: number;
  /** The line's reference or description contains the payout id. */
  refers: boolean;
  /** Days between the value date and the payout's `deposits_at` day. */
  distance: number;
};

export type DepositAssignment = {
  /** Line id → payout id. */
  matches: Map<number, string>;
  /** Payouts left unmatched because credits fit them equally (or a credit fits them equally), with those lines. */
  ambiguous: Map<string, number[]>;
};

const WORD = /[A-Za-z0-9_]/;

/**
 * Whether a bank line's text names the payout: its id, in any case, not as part of a longer word (`po_1`
 * is not named by `po_12`).
 */
export function namesPayout(text: string, payoutId: string): boolean {
  const haystack = text.toLowerCase();
  const needle = payoutId.toLowerCase();
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1] ?? ' ';
    const after = haystack[at + needle.length] ?? ' ';
    if (!WORD.test(before) && !WORD.test(after)) return true;
  }
  return false;
}

// Lower is better: a line naming the payout beats any date, then the nearer date.
const score = (candidate: DepositCandidate) => (candidate.refers ? 0 : 1_000_000) + candidate.distance;

/**
 * Matches credits to payouts one to one (rule 5). Round after round, a payout and a line that are each
 * other's single best fit are matched; a fit shared equally is never broken by order. Scores are the
 * pair's own, so the rounds end with either every fit matched or only equal fits left: those payouts are
 * ambiguous, and stay unmatched with their lines.
 */
export function assignDeposits(candidates: DepositCandidate[]): DepositAssignment {
  const matches = new Map<number, string>();
  const matchedPayouts = new Set<string>();
  let live = candidates;
  for (;;) {
    const bestOf = (key: (candidate: DepositCandidate) => string) => {
      const best = new Map<string, { score: number; count: number }>();
      for (const candidate of live) {
        const current = best.get(key(candidate));
        const value = score(candidate);
        if (!current || value < current.score) best.set(key(candidate), { score: value, count: 1 });
        else if (value === current.score) current.count += 1;
      }
      return best;
    };
    const byPayout = bestOf((candidate) => candidate.payoutId);
    const byLine = bestOf((candidate) => String(candidate.lineId));
    const round = live.filter((candidate) => {
      const payout = byPayout.get(candidate.payoutId);
      const line = byLine.get(String(candidate.lineId));
      const value = score(candidate);
      return payout?.score === value && payout.count === 1 && line?.score === value && line.count === 1;
    });
    if (round.length === 0) break;
    for (const candidate of round) {
      matches.set(candidate.lineId, candidate.payoutId);
      matchedPayouts.add(candidate.payoutId);
    }
    live = live.filter(
      (candidate) => !matchedPayouts.has(candidate.payoutId) && !matches.has(candidate.lineId),
    );
  }
  const ambiguous = new Map<string, number[]>();
  for (const candidate of live)
    ambiguous.set(candidate.payoutId, [...(ambiguous.get(candidate.payoutId) ?? []), candidate.lineId]);
  return { matches, ambiguous };
}
