import type { Server } from 'node:http';
import request from 'supertest';
import { notFound } from '../../src/api/errors.ts';
import type { SeenResponse } from './contract.ts';

/**
 * Every response a test receives from a Tally app through supertest is checked against the OpenAPI document
 * (status, content type, body): a response the document does not describe fails the test that got it.
 * Loaded by vitest (`setupFiles`), so no test has to ask for it.
 */
type Assert = (this: CheckedTest, error: unknown, response: SeenResponse | undefined, done?: Done) => void;
type Done = (this: unknown, error: unknown, response: unknown) => void;
type CheckedTest = { method: string; url: string; app: unknown };
type Layer = { handle?: unknown };
type ExpressApp = { router?: { stack?: Layer[] } };

const Test = (request as unknown as { Test: { prototype: { assert: Assert } } }).Test;
const assert = Test.prototype.assert;

/** A request to an app `createApp` built: its router ends with the API's own not-found handler. */
function isTallyApp(target: unknown): boolean {
  const server = target as Partial<Server> | undefined;
  const listener = server?.listeners?.('request')[0] as ExpressApp | undefined;
  return listener?.router?.stack?.some((layer) => layer.handle === notFound) ?? false;
}

// The document and its validators load with the first response from a Tally app: unit tests never pay for them.
Test.prototype.assert = function checked(error, response, done) {
  if (!response || !isTallyApp(this.app)) return assert.call(this, error, response, done);
  const path = new URL(this.url).pathname;
  void import('./contract.ts')
    .then(({ contractProblem }) => contractProblem(this.method, path, response))
    .catch((failure: unknown) => `the check itself failed: ${String(failure)}`)
    .then((problem) => {
      if (!problem) return assert.call(this, error, response, done);
      return assert.call(this, error, response, function reportFirst(this: unknown, own, seen) {
        done?.call(this, own ?? new Error(`OpenAPI contract: ${problem}`), seen);
      });
    });
};
