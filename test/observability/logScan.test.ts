import { describe, expect, it } from 'vitest';
import { findCardNumber } from '../helpers/logScan.ts';

// The scan after `npm test` must catch a card number however it is written, without using the redactor.
describe('the log scan finds card numbers on its own', () => {
  it.each([
    ['ungrouped', '{"msg":"card 4242424242424242 used"}', '4242424242424242'],
    ['grouped by spaces', 'pan 4242 4242 4242 4242 end', '4242424242424242'],
    ['grouped by dashes', 'pan 5555-5555-5555-4444', '5555555555554444'],
    ['grouped by dots', 'pan 4000.0566.5566.5556', '4000056655665556'],
    ['grouped by no-break spaces', 'pan 4242\u00a04242\u00a04242\u00a04242', '4242424242424242'],
    ['grouped by two spaces', 'pan 4242  4242  4242  4242', '4242424242424242'],
    ['15-digit Amex next to another group', '3782 822463 10005 77', '378282246310005'],
  ])('%s', (_name, text, found) => {
    expect(findCardNumber(text)).toBe(found);
  });

  it.each([
    ['the last four only', '{"card":"****4242"}'],
    ['a UUID whose digits pass Luhn', 'job 1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed'],
    ['13 digits that fail Luhn', 'id 4242424242421'],
    ['a 20-digit id', 'id 42424242424242424242'],
    ['groups joined by a comma', '4242,4242,4242,4242'],
  ])('not %s', (_name, text) => {
    expect(findCardNumber(text)).toBeNull();
  });
});
