import { describe, expect, it } from 'vitest';
import { StillWaiting, until, waitFor } from './waitFor.ts';

describe('waitFor, the one polling helper of the tests', () => {
  it('answers the value of the first check that is done', async () => {
    let calls = 0;
    const value = await waitFor('the third call', () => {
      calls += 1;
      until(calls === 3, `call ${calls}`);
      return calls;
    });
    expect(value).toBe(3);
  });

  it('fails past its timeout, naming what it waited for and what it saw last', async () => {
    await expect(
      waitFor('something that never happens', () => until(false, 'still nothing'), { timeoutMs: 200 }),
    ).rejects.toThrow('waited 200 ms for something that never happens: still nothing');
  });

  it('fails at once on an error that is not a wait', async () => {
    const started = Date.now();
    await expect(
      waitFor('a check that breaks', () => {
        throw new Error('broken');
      }),
    ).rejects.toThrow('broken');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('keeps polling on StillWaiting thrown directly', async () => {
    let calls = 0;
    await waitFor('two calls', () => {
      calls += 1;
      if (calls < 2) throw new StillWaiting('once more');
    });
    expect(calls).toBe(2);
  });
});
