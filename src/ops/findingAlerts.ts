import type { Config } from '../config.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { Boss } from '../queue/boss.ts';
import { type OpenedFinding, takeOpenedFindings } from './alertQueries.ts';
import type { NewAlert } from './queries.ts';
import { raiseAlerts } from './raiseAlerts.ts';

// The capture-expiry scan raises its own alerts, one per threshold crossed, for these codes.
const CAPTURE_CODES = new Set(['capture_expiring', 'capture_expired']);

// A lost dispute is money gone: it alerts whatever ALERT_FINDING_CODES says.
const ALWAYS_ALERTED = ['dispute_lost'];

/** The codes whose opening this scan alerts: ALERT_FINDING_CODES and `dispute_lost`, capture expiry aside. */
export function openedFindingCodes(config: Pick<Config, 'ALERT_FINDING_CODES'>): string[] {
  return [...new Set([...config.ALERT_FINDING_CODES, ...ALWAYS_ALERTED])].filter(
    (code) => !CAPTURE_CODES.has(code),
  );
}

export const findingConsolePath = (id: number) => `/console/findings/${id}`;

export function findingAlert(finding: OpenedFinding): NewAlert {
  return {
    dedupeKey: `finding:${finding.id}`,
    kind: finding.code,
    subjectId: finding.subject_id,
    accountId: finding.account_id,
    findingId: finding.id,
    payload: {
      finding_id: finding.id,
      code: finding.code,
      severity: finding.severity,
      subject_type: finding.subject_type,
      subject_id: finding.subject_id,
      account_id: finding.account_id,
      currency: finding.currency,
      expected: finding.expected,
      actual: finding.actual,
      at_stake: finding.at_stake,
      details: finding.details,
      opened_at: finding.first_seen_at.toISOString(),
      console_path: findingConsolePath(finding.id),
    },
  };
}

const BATCH = 500;

/**
 * One alert per finding opened with a chosen code (keyed `finding:<id>`), raised in the transaction that
 * takes it from `opened_findings`: a crash alerts nothing twice and loses nothing. Findings opened and
 * resolved before this scan are not alerted. Returns how many alerts were raised.
 */
export async function raiseOpenedFindingAlerts(
  context: { pool: Pool; boss: Boss; config: Pick<Config, 'ALERT_FINDING_CODES' | 'ALERT_DIGEST_MINUTES'> },
  now: Date,
): Promise<number> {
  const codes = openedFindingCodes(context.config);
  let raised = 0;
  for (;;) {
    const taken = await withTransaction(context.pool, async (client) => {
      const { taken, findings } = await takeOpenedFindings(client, codes, BATCH);
      const ids = await raiseAlerts(
        { boss: context.boss, client },
        context.config,
        findings.map(findingAlert),
        now,
      );
      raised += ids.length;
      return taken;
    });
    if (taken < BATCH) return raised;
  }
}
