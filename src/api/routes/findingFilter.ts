import { z } from 'zod';
import { dayRange } from '../../domain/days.ts';
import type { FindingFilter } from '../../findings/readQueries.ts';
import { FINDING_STATUSES } from '../../findings/workflow.ts';
import { calendarDate, oneOf, parseQuery, storableText } from './params.ts';

/** The findings filter of `GET /api/findings` and the console's list and bulk form: dates are whole UTC days, `to` included. */
export const findingFilterQuery = z.object({
  code: storableText().optional(),
  status: oneOf(FINDING_STATUSES).optional(),
  subject_id: storableText().optional(),
  account_id: storableText().optional(),
  currency: storableText().optional(),
  from: calendarDate().optional(),
  to: calendarDate().optional(),
});

export function findingFilterFrom(query: z.output<typeof findingFilterQuery>): FindingFilter {
  return {
    code: query.code,
    status: query.status,
    subjectId: query.subject_id,
    accountId: query.account_id,
    currency: query.currency,
    ...dayRange(query.from, query.to),
  };
}

/** The filter of a console query or form, and the parsed query it came from. */
export function findingFilterOf(input: unknown): {
  filter: FindingFilter;
  query: z.output<typeof findingFilterQuery>;
} {
  const query = parseQuery(findingFilterQuery, input);
  return { filter: findingFilterFrom(query), query };
}
