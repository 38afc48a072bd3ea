import type { StatementFormat } from '../src/bank/statement.ts';

/** A payout as the bank would see it arrive. */
export type BankDeposit = { id: string; amount: number; currency: string; deposits_at: string };
export type BankStatementOptions = {
  /** Payout ids whose credit the bank "lost". */
  drop?: string[];
  /** Payout ids whose credit arrives one cent higher. */
  alter?: string[];
  bankAccount?: string;
  /** The dates the statement says it covers (YYYY-MM-DD); by default the first to the last deposit's day. */
  covers?: { from: string; to: string };
};

type Credit = { reference: string; valueDate: string; amount: number; currency: string };

const DEFAULT_ACCOUNT = '000123456789';

/**
 * A bank statement of the deposits in `format`, as a bank would export it: one credit per payout on its
 * `deposits_at` day, described `JUSTIFI PAYOUT <id>` with the payout id as the reference. Pure, so a test
 * can import exactly what the simulator serves.
 */
export function renderBankStatement(
  format: StatementFormat,
  deposits: BankDeposit[],
  options: BankStatementOptions = {},
): string {
  const dropped = new Set(options.drop ?? []);
  const altered = new Set(options.alter ?? []);
  const credits = deposits
    .filter((deposit) => !dropped.has(deposit.id))
    .map((deposit) => ({
      reference: deposit.id,
      valueDate: new Date(deposit.deposits_at).toISOString().slice(0, 10),
      amount: deposit.amount + (altered.has(deposit.id) ? 1 : 0),
      currency: deposit.currency.toUpperCase(),
    }))
    .sort((a, b) => a.valueDate.localeCompare(b.valueDate) || a.reference.localeCompare(b.reference));
  const days = deposits.map((deposit) => new Date(deposit.deposits_at).toISOString().slice(0, 10)).sort();
  const period = options.covers ?? { from: days[0] ?? '1970-01-01', to: days.at(-1) ?? '1970-01-01' };
  const currencies = [...new Set(deposits.map((deposit) => deposit.currency.toUpperCase()))].sort();
  const account = options.bankAccount ?? DEFAULT_ACCOUNT;
  if (format === 'csv') return renderCsv(credits);
  if (format === 'camt053') return renderCamt053(credits, account, period, currencies);
  return renderBai2(credits, account, period, currencies);
}

const decimal = (cents: number) =>
  `${cents < 0 ? '-' : ''}${Math.trunc(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

const description = (credit: Credit) => `JUSTIFI PAYOUT ${credit.reference}`;

function renderCsv(credits: Credit[]): string {
  const rows = credits.map(
    (credit) =>
      `${credit.valueDate},"${description(credit)}",${credit.reference},"${decimal(credit.amount)}",${credit.currency}`,
  );
  return `Value Date,Description,Reference,Amount,Currency\n${rows.map((row) => `${row}\n`).join('')}`;
}

type Period = { from: string; to: string };

function renderCamt053(credits: Credit[], account: string, period: Period, currencies: string[]): string {
  const entries = credits.map(
    (credit) => `      <Ntry>
        <Amt Ccy="${credit.currency}">${decimal(credit.amount)}</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${credit.valueDate}</Dt></BookgDt>
        <ValDt><Dt>${credit.valueDate}</Dt></ValDt>
        <BkTxCd><Prtry><Cd>ACH CREDIT</Cd></Prtry></BkTxCd>
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>${credit.reference}</EndToEndId></Refs>
          <RmtInf><Ustrd>${description(credit)}</Ustrd></RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>
`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>SIM-${period.to}</MsgId><CreDtTm>${period.to}T23:00:00Z</CreDtTm></GrpHdr>
    <Stmt>
      <Id>SIM-${period.from}-${period.to}</Id>
      <CreDtTm>${period.to}T23:00:00Z</CreDtTm>
      <FrToDt><FrDtTm>${period.from}T00:00:00Z</FrDtTm><ToDtTm>${period.to}T23:59:59Z</ToDtTm></FrToDt>
      <Acct><Id><Othr><Id>${account}</Id></Othr></Id>${currencies.length === 1 ? `<Ccy>${currencies[0]}</Ccy>` : ''}</Acct>
${entries.join('')}    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
}

const yymmdd = (day: string) => day.slice(2).replaceAll('-', '');

function daysOf(period: Period): string[] {
  const days: string[] = [];
  for (let day = new Date(`${period.from}T00:00:00Z`); day.toISOString().slice(0, 10) <= period.to; ) {
    days.push(day.toISOString().slice(0, 10));
    day = new Date(day.getTime() + 86_400_000);
  }
  return days;
}

// One group per day of the period (its as-of date) and, in it, one account per currency, credits or none.
function renderBai2(credits: Credit[], account: string, period: Period, currencies: string[]): string {
  const records = [`01,JUSTIFISIM,TALLY,${yymmdd(period.to)},2300,1,,,2/`];
  const days = daysOf(period);
  let fileTotal = 0;
  for (const day of days) {
    const groupStart = records.length;
    records.push(`02,TALLY,JUSTIFISIM,1,${yymmdd(day)},2300,,2/`);
    let groupTotal = 0;
    for (const currency of currencies) {
      const ofAccount = credits.filter((credit) => credit.valueDate === day && credit.currency === currency);
      const total = ofAccount.reduce((sum, credit) => sum + credit.amount, 0);
      const accountStart = records.length;
      records.push(`03,${account},${currency},015,0,,,100,${total},${ofAccount.length},/`);
      for (const credit of ofAccount)
        records.push(`16,165,${credit.amount},0,${credit.reference},,${description(credit)}`);
      records.push(`49,${2 * total},${records.length - accountStart + 1}/`);
      groupTotal += 2 * total;
    }
    records.push(`98,${groupTotal},${currencies.length},${records.length - groupStart + 1}/`);
    fileTotal += groupTotal;
  }
  records.push(`99,${fileTotal},${days.length},${records.length + 1}/`);
  return `${records.join('\n')}\n`;
}
