import { z } from 'zod';
import { CHANGE_OBJECTS, CHANGE_TYPES } from '../../changes/changeTypes.ts';
import { named, timestamp } from './registry.ts';

export const changeSchema = named(
  'Change',
  'One change Tally made to a projected object or a finding, with the object as the API shows it after the change.',
  z.strictObject({
    id: z.string().regex(/^chg_\d+$/),
    seq: z.int().positive(),
    type: z.enum(CHANGE_TYPES),
    object: z.enum([...CHANGE_OBJECTS, 'finding']),
    object_id: z.string(),
    object_version: z.int().positive(),
    account_id: z.string().nullable(),
    account_type: z.string().nullable(),
    occurred_at: timestamp(),
    recorded_at: timestamp(),
    event_ids: z.array(z.string()),
    data: z.record(z.string(), z.unknown()),
  }),
);
