/**
 * A finding as the API, the console and the close report name it: `fnd_` and its row id (never 0, no leading
 * zero), like the provider's prefixed ids.
 */
export const FINDING_ID = /^fnd_[1-9]\d*$/;

export function findingIdText(rowId: number | string): string {
  return `fnd_${rowId}`;
}
