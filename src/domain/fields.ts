import { z } from 'zod';

/** Cents: integers only, as the provider sends them. */
export const cents = z.number().int();

export const timestamp = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), 'not a timestamp')
  .transform((value) => new Date(value));

/** Keeps the later of two (time, delivery) order keys: a snapshot replaces another only when newer. */
export type OrderKey = { updatedAt: Date; eventRowId: number };
