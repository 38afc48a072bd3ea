import { describe, expect, it } from 'vitest';
import { runScript } from '../helpers/childProcess.ts';

// The benchmarks' figures live in bench/, never in a timed test. Here each runs as a user runs it, with a
// small count, so that a schema change cannot break one unnoticed and each still ends cleanly: exit 0 and no
// error line (bench:worker once printed ~100 pool errors at exit). bench:ingest is left out: it needs wrk and
// runs for minutes at any count; bench:year needs wrk too, but runs small in seconds.

describe('benchmarks, run small', () => {
  it.each<{ name: string; args: string[]; env: Record<string, string>; shows: RegExp[] }>([
    {
      name: 'bench:worker',
      args: ['bench/worker.ts', '300'],
      env: {},
      shows: [
        /^300 deliveries of 240 payments \(4 baseline clients\), 0 failed, \d+ changes appended$/m,
        /^projected and reconciled: .*ratio/m,
      ],
    },
    {
      name: 'bench:report',
      args: ['bench/report.ts', '2000'],
      env: {},
      shows: [/^2000 payments, 400 refunds; report rows: .* 2000 payments counted$/m],
    },
    {
      name: 'bench:close',
      args: ['bench/close.ts', '2000'],
      env: { BENCH_ROUNDS: '2' },
      shows: [
        /^2000 payments in 2026-10 \(America\/New_York\); 400 accounts, .* unexplained 100 cents; journal: \d+ entries/m,
        /^round 2: baseline [\d.]+ s, report \(\+CSV\/HTML\) [\d.]+ s, journal [\d.]+ s: ratio [\d.]+, peak RSS \d+ MB$/m,
        /^report and journal against the baseline, median over 2 rounds: [\d.]+ \(target ≤ 5×\)$/m,
        /^peak RSS while building, over every round: \d+ MB \(target ≤ 300 MB\), rounds not collected between \(run it as npm run bench:close, which passes --expose-gc\)$/m,
      ],
    },
    {
      name: 'bench:sweep',
      args: ['bench/sweep.ts', '200'],
      env: {},
      shows: [/"listed": 200,/, /"new": 200,/],
    },
    {
      name: 'bench:purge',
      args: ['bench/purge.ts', '2000'],
      env: { BENCH_CHUNK_SECONDS: '1' },
      shows: [
        /^purged the bodies of 2000 deliveries/m,
        /^ {2}paced: \d+ batches of \d+ to \d+ rows/m,
        /during purge: +\d+ requests, 0 non-2xx/,
      ],
    },
    {
      name: 'bench:payouts',
      args: ['bench/payouts.ts', '5'],
      env: { BENCH_PAYOUT_LINES: '200' },
      shows: [
        /"lines": 1000,\n\s+"payments": 500,/,
        /"synced": 5,\n\s+"lines": 1000,\n\s+"paymentsFetched": 0,\n\s+"paymentsNotFound": 0/,
        /"projected": \{\n\s+"payouts": 5,\n\s+"lines": 1000,\n\s+"failed_events": 0/,
        /"judged": 5,\n\s+"unjudged": 0,\n\s+"overtaken": 0/,
        /"open_findings": 0,/,
        /"ratio_all_to_paging": [\d.]+,/,
      ],
    },
    {
      name: 'bench:bank-import',
      args: ['bench/bankImport.ts', '1'],
      env: {},
      shows: [
        /^first import: 201 .*"duplicates":0,"matched":0\}/m,
        /^re-import: 200 .*"lines":(\d+),"credits":\d+,"duplicates":\1,/m,
      ],
    },
    {
      name: 'bench:year',
      args: ['bench/year.ts', '20000'],
      env: {
        BENCH_ROUNDS: '1',
        BENCH_SECONDS: '2',
        BENCH_SWEEP_PAYMENTS: '200',
        BENCH_PURGE_CHUNK_SECONDS: '1',
        BENCH_MIGRATION_CHUNK_SECONDS: '1',
        BENCH_MIGRATION_ROUNDS: '1',
        BENCH_REPLICA_ROUNDS: '1',
      },
      shows: [
        /^year: 20000 deliveries \(10000 payments, /m,
        /^ {2}empty: \d+ acked\/s, 0 non-2xx; every payment reconciled [\d.]+ s/m,
        /^ {2}year : \d+ acked\/s, 0 non-2xx; every payment reconciled [\d.]+ s/m,
        /^ {2}sweep listing 200 payments: /m,
        /^claim plans match; uses the partial index on waiting rows: yes$/m,
        /^ {2}p99 during release\/without \(mean of the rounds' p99s\): [\d.]+, worst round [\d.]+ \(target ≤ 2\); failed requests: 0 in the chunks around release \([1-9]\d* sent while it ran; target 0\), 0 without$/m,
        /^ {2}replica\/primary: [\d.]+; year\/day only: primary [\d.]+, replica [\d.]+ /m,
        /^retention: purged 16\d\d bodies /m,
        /^ {2}paced: \d+ batches of \d+ to \d+ rows/m,
      ],
    },
    {
      name: 'bench:forward',
      args: ['--expose-gc', 'bench/forward.ts', '500'],
      env: { BENCH_ROUNDS: '1', BENCH_SECONDS: '5', BENCH_RATE: '50' },
      shows: [
        /^round 1: 500 deliveries projected, by the worker without a subscription \d+\/s, with one \d+\/s .*; with forwarding \/ without [\d.]+, \/ projection alone [\d.]+$/m,
        /^throughput with forwarding \/ without: median [\d.]+ of 1 rounds \([\d.]+\); \/ the projection alone: median [\d.]+$/m,
        /^steady: (\d+) deliveries at 50\/s for 5 s, \1 delivered; lag p50 [\d.]+ s, p99 [\d.]+ s/m,
      ],
    },
    {
      name: 'bench:sizing',
      args: ['bench/sizing.ts', '2'],
      env: {},
      shows: [/"not_2xx": 0/, /"raw_log_bytes_per_delivery": \d+/, /"worker": \{\s+"idle": \d+/],
    },
  ])(
    '$name runs to the end against the current schema and exits cleanly',
    async ({ args, env, shows }) => {
      const { code, stdout, stderr } = await runScript(args, env);
      expect({ code, stderr: stderr.match(/.*error.*/gi) }).toEqual({ code: 0, stderr: null });
      expect(stdout).not.toMatch(/error/i);
      for (const pattern of shows) expect(stdout).toMatch(pattern);
    },
    // Whole processes that start their own Postgres: on a busy machine a run takes several times its 5–25 s.
    120_000,
  );

  it('a count that is not a positive whole number stops a bench at once with exit 2, naming it', async () => {
    const { code, stdout, stderr } = await runScript(['bench/worker.ts', 'abc']);
    expect({ code, stdout, stderr: stderr.trim() }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'N must be a positive whole number, not "abc"',
    });
  });

  it('BENCH_ROUNDS that is not a positive whole number stops a bench at once with exit 2, naming it', async () => {
    const { code, stdout, stderr } = await runScript(['bench/close.ts', '10'], { BENCH_ROUNDS: '0' });
    expect({ code, stdout, stderr: stderr.trim() }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'BENCH_ROUNDS must be a positive whole number, not "0"',
    });
  });
});
