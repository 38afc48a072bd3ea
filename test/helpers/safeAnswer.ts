import type { Response } from 'supertest';
import { expect } from 'vitest';

// What an answer must never show: a stack frame, a source path, SQL, a database or decoder error.
export const INTERNALS = /\bat \S+ \(|\.[jt]s:\d|select |insert |syntax error|postgres|URIError|stack/i;

/** Any input gets a 2xx, 3xx or a 4xx with the error body, and never shows internals. */
export function expectSafeAnswer(response: Response) {
  expect(response.status).toBeLessThan(500);
  if (response.status >= 400) {
    expect(response.type).toBe('application/json');
    expect(response.body.error.code).toEqual(expect.any(String));
  }
  expect(response.text).not.toMatch(INTERNALS);
}
