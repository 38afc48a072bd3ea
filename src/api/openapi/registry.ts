import { z } from 'zod';

/**
 * What the API answers, as zod schemas turned into the OpenAPI document's components (`z.toJSONSchema`).
 * Nothing parses responses with them: they describe, and the test suite checks every response against them.
 * Objects whose every field is listed are strict (a new field fails the suite until it is described);
 * objects read from stored provider data are open, with the fields a client relies on required.
 */
export const components = z.registry<{
  id?: string;
  title?: string;
  description?: string;
  enum?: string[];
}>();

export const named = <Schema extends z.ZodType>(id: string, description: string, schema: Schema): Schema => {
  components.add(schema, { id, description });
  return schema;
};

/** A schema the document states more narrowly than it parses (a job name: the app checks its own job list). */
export const documentedAs = <Schema extends z.ZodType>(
  schema: Schema,
  narrower: { enum: string[] },
): Schema => {
  components.add(schema, narrower);
  return schema;
};

export const timestamp = () => z.iso.datetime({ offset: true });
/** Integer cents; null when not measured. */
export const cents = () => z.int();
export const count = () => z.int().nonnegative();
