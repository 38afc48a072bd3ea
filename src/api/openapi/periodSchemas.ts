import { z } from 'zod';
import { CUT_OFF_DAYS, CUT_OFF_TIMES } from '../../close/cutOff.ts';
import { PERIOD_ACTIONS, PERIOD_STATUSES } from '../../close/periods.ts';
import { LEDGER_STATUSES } from '../../close/tieOut.ts';
import { WALK_TERMS } from '../../close/walk.ts';
import { cents, count, named, timestamp } from './registry.ts';

const walk = z.strictObject(
  Object.fromEntries(WALK_TERMS.map((term) => [term, cents()])) as Record<
    (typeof WALK_TERMS)[number],
    ReturnType<typeof cents>
  >,
);

export const periodReportSchema = named(
  'PeriodReport',
  'The close report of a period, per account and currency in integer cents: activity, payouts, bank, the walk (held_start + prior_period_adjustments + net + unexplained − paid_out = held_end), open items, and the journal movements.',
  z.looseObject({
    kind: z.literal('period'),
    period: z.string(),
    time_zone: z.string(),
    from: timestamp(),
    to: timestamp(),
    generated_at: timestamp(),
    adjusts: z.string().nullable(),
    accounts: z.array(
      z.looseObject({
        account_type: z.string(),
        account_id: z.string(),
        currency: z.string(),
        activity: z.record(z.string(), cents()),
        payouts: z.record(z.string(), cents()),
        bank: z.record(z.string(), cents()),
        walk,
        unexplained: z.looseObject({ total: cents(), remainder: cents() }),
        provider_held_end: cents().nullable().meta({
          description:
            "The provider's own ledger at the period's end: the signed net of its balance transactions in no payout created by then; null when the account's ledger is not listed or the listing is stale (`tie_out.ledger`, `tie_out.note`).",
        }),
        held_difference: cents().nullable().meta({ description: '`walk.held_end − provider_held_end`.' }),
        tie_out: z.looseObject({
          ledger: z.enum(LEDGER_STATUSES),
          note: z.string().nullable(),
          provider_lines_without_item: z.array(z.looseObject({ id: z.string(), net: cents() })),
          items_without_provider_line: z.array(z.looseObject({ id: z.string(), amount: cents() })),
        }),
      }),
    ),
    open_items: z.looseObject({
      findings: z.array(z.looseObject({ code: z.string(), at_stake: cents() })),
      payout_mode_unknown: z
        .array(
          z.strictObject({
            payout_id: z.string(),
            account_id: z.string(),
            currency: z.string(),
            day: z.iso.date(),
            kind: z.string(),
            amount: cents(),
          }),
        )
        .describe(
          'Movements of payouts whose account the provider never stated live or test: left out of the journal, never guessed. Absent in versions closed before it was reported.',
        )
        .optional(),
    }),
    journal: z.array(
      z.looseObject({ currency: z.string(), day: z.iso.date(), kind: z.string(), amount: cents() }),
    ),
  }),
);

export const periodSummarySchema = named(
  'PeriodSummary',
  'A period: its state and, per currency (test and live apart), its net and open findings.',
  z.strictObject({
    period: z.string(),
    status: z.enum(PERIOD_STATUSES),
    version: count().nullable(),
    closed_at: timestamp().nullable(),
    closed_by: z.string().nullable(),
    currencies: z.array(
      z.strictObject({ account_type: z.string(), currency: z.string(), net: cents(), open_items: count() }),
    ),
  }),
);

const history = z.array(
  z.strictObject({
    action: z.enum(PERIOD_ACTIONS),
    version: count(),
    actor: z.string(),
    note: z.string().nullable(),
    created_at: timestamp(),
  }),
);

export const closeStateShape = {
  status: z.enum(PERIOD_STATUSES),
  version: count().nullable(),
  closed_at: timestamp().nullable(),
  closed_by: z.string().nullable(),
  content_sha256: z.string().nullable(),
  cut_off: z
    .strictObject({
      ...(Object.fromEntries(CUT_OFF_TIMES.map((field) => [field, timestamp().nullable()])) as Record<
        (typeof CUT_OFF_TIMES)[number],
        z.ZodNullable<ReturnType<typeof timestamp>>
      >),
      ...(Object.fromEntries(CUT_OFF_DAYS.map((field) => [field, z.iso.date().nullable()])) as Record<
        (typeof CUT_OFF_DAYS)[number],
        z.ZodNullable<z.ZodISODate>
      >),
    })
    .nullable(),
  history,
};

export const periodStateSchema = named(
  'PeriodState',
  "A period's state after a close or reopen: its current version (closed), the content hash and data cut-off of that version, and every close and reopen.",
  z.strictObject({ period: z.string(), ...closeStateShape }),
);

export const journalExportsSchema = z
  .array(
    z.strictObject({
      version: count(),
      format: z.string(),
      currency: z.string().nullable(),
      part: count().nullable(),
      changes_since: count().nullable(),
      actor: z.string(),
      created_at: timestamp(),
    }),
  )
  .describe(
    "Every download of the period's journal while it was closed: the version, format, currency and part, the version it held the changes since (null: the full journal), who and when.",
  );
