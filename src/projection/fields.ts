import { z } from 'zod';

/** Cents: integers only, as the provider sends them. */
export const cents = z.number().int();

export const timestamp = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), 'not a timestamp')
  .transform((value) => new Date(value));
