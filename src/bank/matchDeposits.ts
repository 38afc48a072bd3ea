import pg from 'pg';
import type { Config } from '../config.ts';
import { type Pool, type PoolClient, withTransaction } from '../db/pool.ts';
import { recordFindings } from '../findings/recordFindings.ts';
import { assignDeposits, namesPayout } from './assignDeposits.ts';
import { bankMatchFindings } from './bankRules.ts';
import {
  listDepositCandidates,
  listPayoutFacts,
  listPayoutsMissingInBank,
  listUnmatchedProviderCredits,
  lockBankMatching,
  saveDepositMatches,
} from './matchQueries.ts';

export type BankMatchResult = {
  matched: number;
  ambiguous: number;
  notInBank: number;
  unmatchedCredits: number;
};

// One complete run over every payout and bank line: a finding it no longer reports is resolved.
const SCOPE = 'bank-matching';

/**
 * Matches imported bank credits to paid payouts again from scratch (rule 5) and records its findings. Run it
 * after an import (the import does, in its transaction) and whenever payouts change. Given the pool it runs
 * in a transaction of its own; given a client, in the transaction the caller has begun on it.
 */
export async function matchBankDeposits(
  db: Pool | PoolClient,
  config: Pick<Config, 'BANK_MATCH_DAYS' | 'BANK_PROVIDER_PATTERN'>,
  now: Date,
): Promise<BankMatchResult> {
  if (db instanceof pg.Pool) return withTransaction(db, (client) => matchBankDeposits(client, config, now));
  await lockBankMatching(db);
  const days = config.BANK_MATCH_DAYS;
  const candidates = (await listDepositCandidates(db, days)).map(({ text, ...candidate }) => ({
    ...candidate,
    refers: namesPayout(text, candidate.payoutId),
  }));
  const { matches, ambiguous } = assignDeposits(candidates);
  await saveDepositMatches(db, matches);
  const ambiguousPayouts = await listPayoutFacts(db, [...ambiguous.keys()], days);
  const facts = {
    ambiguous: ambiguousPayouts.map((payout) => ({ payout, lineIds: ambiguous.get(payout.id) ?? [] })),
    missing: await listPayoutsMissingInBank(db, days, [...ambiguous.keys()]),
    unmatchedCredits: await listUnmatchedProviderCredits(
      db,
      config.BANK_PROVIDER_PATTERN,
      [...ambiguous.values()].flat(),
    ),
  };
  await recordFindings(db, { scope: SCOPE, accountId: null, currency: null, now }, bankMatchFindings(facts));
  return {
    matched: matches.size,
    ambiguous: facts.ambiguous.length,
    notInBank: facts.missing.length,
    unmatchedCredits: facts.unmatchedCredits.length,
  };
}
