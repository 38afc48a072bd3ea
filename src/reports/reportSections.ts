import type { DailyReport } from './buildDailyReport.ts';
import { COUNT_COLUMNS, MONEY_COLUMNS } from './buildDailyReport.ts';
import type { FeeConfigurationReport } from './buildFeeConfigurationReport.ts';
import { declinesSection } from './declinesByNetwork.ts';
import { payoutsSection } from './payoutsSection.ts';
import type { Section } from './sectionShape.ts';

export type Report = DailyReport | FeeConfigurationReport;

const money = [...MONEY_COLUMNS];

/** The tables of a report, in reading order; CSV and HTML render the same sections. */
export function sectionsOf(report: Report): Section[] {
  if (report.kind === 'daily') {
    return [
      {
        name: 'summary',
        title: 'Totals per mode and currency',
        columns: ['account_type', 'currency', 'accounts', ...COUNT_COLUMNS, ...money],
        money,
        rows: report.totals,
      },
      {
        name: 'accounts',
        title: 'Accounts',
        columns: ['account_type', 'account_id', 'currency', ...COUNT_COLUMNS, ...money],
        money,
        rows: report.accounts,
      },
      {
        name: 'returned_fees_by_reason',
        title:
          'Fees returned by reason (refund is the fees returned above; ACH returns and voids are not in net)',
        columns: ['account_type', 'account_id', 'currency', 'refund', 'ach_return', 'void', 'total'],
        money: ['refund', 'ach_return', 'void', 'total'],
        rows: report.returned_fees_by_reason,
      },
      {
        name: 'ach_returns',
        title: 'ACH returns',
        columns: ['account_type', 'currency', 'code', 'category', 'retryable', 'late', 'returns', 'amount'],
        money: ['amount'],
        rows: report.ach_returns,
      },
      {
        name: 'disputes',
        title:
          'Disputes opened, won, lost (forfeited included) and in other statuses on this day; open now, at risk',
        columns: [
          'account_type',
          'account_id',
          'currency',
          'opened',
          'opened_amount',
          'won',
          'won_amount',
          'lost',
          'lost_amount',
          'other',
          'other_amount',
          'open',
          'at_risk',
        ],
        money: ['opened_amount', 'won_amount', 'lost_amount', 'other_amount', 'at_risk'],
        rows: report.disputes,
      },
      {
        name: 'captures',
        title: 'Authorizations expiring or expired uncaptured',
        columns: ['account_type', 'currency', 'code', 'findings', 'at_stake'],
        money: ['at_stake'],
        rows: report.captures,
      },
      {
        name: 'forwarding',
        title: 'Forwarding outcomes per destination',
        columns: [
          'account_type',
          'destination',
          'completed',
          'completed_error_status',
          'failed',
          'timeout',
          'connection_error',
          'internal_error',
        ],
        money: [],
        rows: report.forwarding,
      },
      {
        name: 'findings',
        title: 'Open findings',
        columns: ['account_type', 'currency', 'code', 'findings', 'at_stake'],
        money: ['at_stake'],
        rows: report.findings,
      },
      {
        name: 'top_findings',
        title: 'Open findings with the most at stake',
        columns: [
          'id',
          'code',
          'severity',
          'subject_type',
          'subject_id',
          'payment_id',
          'currency',
          'at_stake',
        ],
        money: ['at_stake'],
        rows: report.top_findings,
      },
      {
        name: 'accepted_findings',
        title: 'Accepted findings (accepted with a note: not in the open counts)',
        columns: ['account_type', 'currency', 'code', 'findings', 'at_stake'],
        money: ['at_stake'],
        // Reports stored before these sections existed have none.
        rows: report.accepted_findings ?? [],
      },
      {
        name: 'match_rates',
        title:
          'Match rate: payments of the day whose every check passed, over payments checked (unverified apart)',
        columns: ['account_type', 'account_id', 'currency', 'checked', 'matched', 'match_rate', 'unverified'],
        money: [],
        rows: report.match_rates ?? [],
      },
      payoutsSection(report.payouts),
      declinesSection(report.declines ?? []),
    ];
  }
  const rows = report.accounts.flatMap((account) =>
    account.fee_types.map((type) => ({
      account_id: account.account_id,
      fee_type: type.fee_type,
      effective_id: type.effective?.id ?? null,
      variable_rate: type.effective?.variable_rate ?? null,
      transaction_fee_cents: type.effective?.transaction_fee_cents ?? null,
      fee_cap_cents: type.effective?.fee_cap_cents ?? null,
      new: type.new.map((item) => item.id).join(' '),
      retired: type.retired.map((item) => item.id).join(' '),
      scheduled: type.scheduled.map((item) => `${item.id}@${item.takes_effect}`).join(' '),
      rewritten: type.rewritten.map((item) => item.id).join(' '),
      chain_broken: type.chain_broken,
    })),
  );
  const impact = report.accounts.flatMap((account) =>
    account.fee_types.flatMap((type) =>
      type.impact.map((row) => ({ account_id: account.account_id, fee_type: type.fee_type, ...row })),
    ),
  );
  return [
    {
      name: 'configurations',
      title: 'Fee configurations per sub account and fee type',
      columns: Object.keys(rows[0] ?? { account_id: '', fee_type: '' }),
      money: [],
      rows,
    },
    {
      name: 'impact',
      title: 'Impact of new and scheduled configurations (last 30 days re-priced)',
      columns: [
        'account_id',
        'fee_type',
        'configuration_id',
        'currency',
        'payments',
        'charged',
        'repriced',
        'difference',
      ],
      money: ['charged', 'repriced', 'difference'],
      rows: impact,
    },
  ];
}
