/** Integer cents as a decimal with exactly two places, in bigint arithmetic: 123456 → "1234.56", -5 → "-0.05". */
export function centsToDecimal(cents: number | bigint): string {
  const value = BigInt(cents);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}
