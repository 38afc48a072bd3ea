import type { CutOff, readCutOff } from './closeQueries.ts';

/** The instants a close's data cut-off names: the newest delivery received, sweep and payout sync completed. */
export const CUT_OFF_TIMES = ['last_delivery_received_at', 'last_sweep_at', 'last_payout_sync_at'] as const;
/** The days it names: the newest day an imported statement covers. */
export const CUT_OFF_DAYS = ['newest_statement_date'] as const;

type Named = Record<(typeof CUT_OFF_TIMES)[number] | (typeof CUT_OFF_DAYS)[number], string | null>;
// The lists above are the stored row's fields exactly: a field added to one and not the other fails to compile.
const sameFields: [Named, CutOff] extends [CutOff, Named] ? true : never = true;
void sameFields;

/** The cut-off as a close stores it: each instant as ISO 8601 text. */
export function storedCutOff(read: Awaited<ReturnType<typeof readCutOff>>): CutOff {
  return {
    ...(Object.fromEntries(
      CUT_OFF_TIMES.map((field) => [field, read[field]?.toISOString() ?? null]),
    ) as Record<(typeof CUT_OFF_TIMES)[number], string | null>),
    ...(Object.fromEntries(CUT_OFF_DAYS.map((field) => [field, read[field]])) as Record<
      (typeof CUT_OFF_DAYS)[number],
      string | null
    >),
  };
}
