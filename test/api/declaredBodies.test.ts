import { describe, expect, it } from 'vitest';
import { asHttpError, HttpError } from '../../src/api/errors.ts';
import { routes } from '../../src/api/routes/index.ts';
import { CloseRefusedError } from '../../src/close/closePeriod.ts';
import { JournalRefusedError } from '../../src/close/periodJournal.ts';
import { PeriodError } from '../../src/close/periodService.ts';
import { WorkflowError } from '../../src/findings/changeFindings.ts';

describe('request bodies are parsed from their declaration', () => {
  it('every JSON body a route declares is parsed by the runner, with the schema its OpenAPI entry shows', () => {
    // The job routes are left out: each refuses a field its job does not take with its own 400, in its handler.
    const jsonBodies = routes.filter(
      (declared) => declared.body?.json !== undefined && !declared.path.startsWith('/api/jobs/'),
    );
    expect(jsonBodies.map((declared) => `${declared.method} ${declared.path}`)).toEqual(
      expect.arrayContaining([
        'post /api/findings/{id}/{action}',
        'post /api/periods/{period}/close',
        'post /api/periods/{period}/reopen',
        'post /api/subscriptions',
      ]),
    );
    for (const declared of jsonBodies) {
      expect(declared.body?.schema, `${declared.method} ${declared.path}`).toBeDefined();
      expect(declared.body?.content['application/json']).toBe(declared.body?.schema);
    }
  });
});

describe("the stages' refusals as answers, in one place", () => {
  const answerOf = (err: Error) => {
    const answer = asHttpError(err);
    expect(answer).toBeInstanceOf(HttpError);
    const { status, code, message } = answer as HttpError;
    return { status, code, message };
  };

  it.each([
    [new PeriodError('period: 2026-13 is not one'), 400, 'invalid_parameter'],
    [
      new JournalRefusedError(409, 'not_closed_at_a_later_version', 'changes_since: open'),
      409,
      'not_closed_at_a_later_version',
    ],
    [new JournalRefusedError(422, 'currency_not_supported', 'currency: eur'), 422, 'currency_not_supported'],
    [new CloseRefusedError('2026-01 cannot be closed: x', 'refused', 'close_refused'), 409, 'close_refused'],
    [
      new CloseRefusedError('2026-01 cannot be reopened: x', 'refused', 'reopen_refused'),
      409,
      'reopen_refused',
    ],
    [
      new CloseRefusedError('note: required to reopen', 'note_required', 'note_required'),
      422,
      'note_required',
    ],
    [new WorkflowError('not_found', 'no finding with that id'), 404, 'resource_not_found'],
    [new WorkflowError('invalid_transition', 'not from open'), 409, 'invalid_transition'],
    [new WorkflowError('note_required', 'note: required to accept a finding'), 422, 'note_required'],
  ])('%s answers %i %s, in its own words', (err, status, code) => {
    expect(answerOf(err)).toEqual({ status, code, message: err.message });
  });

  it('leaves any other error as it is, for the handler to log and hide', () => {
    const err = new Error('connection refused');
    expect(asHttpError(err)).toBe(err);
  });
});
