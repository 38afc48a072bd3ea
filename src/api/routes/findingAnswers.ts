import { z } from 'zod';
import type { Pool } from '../../db/pool.ts';
import { FINDING_ID } from '../../findings/findingId.ts';
import { readFindingWithHistory } from '../../findings/presentFinding.ts';
import { HttpError } from '../errors.ts';
import { parseRowId, refusedAs } from './params.ts';

// What the API's finding routes and the console's finding pages both read a finding with.

const noFinding = () => new HttpError(404, 'resource_not_found', 'no finding with that id');

/** A `fnd_…` path id as its row id; anything else names no finding (404). */
export const findingIdParam = refusedAs(
  z
    .string()
    .regex(FINDING_ID)
    .transform((value, context) => {
      const id = parseRowId(value.slice('fnd_'.length));
      if (id === null) context.addIssue({ code: 'custom', message: 'names no finding' });
      return id ?? z.NEVER;
    }),
  noFinding,
);

/** The row id of a `fnd_…` path id; anything else names no finding (404). */
export function findingIdOf(value: string | undefined): number {
  const parsed = findingIdParam.safeParse(value);
  if (!parsed.success) throw noFinding();
  return parsed.data;
}

export async function findingWithHistory(pool: Pool, id: number) {
  const finding = await readFindingWithHistory(pool, id);
  if (!finding) throw noFinding();
  return finding;
}
