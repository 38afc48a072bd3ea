import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodBounds, periodsBetween } from '../../src/close/periods.ts';
import { localMidnight } from '../../src/domain/days.ts';
import { createTestDatabase } from '../helpers/database.ts';

// Zones with an hour of daylight saving both ways of the equator, half an hour (Lord Howe), a quarter-hour
// offset (Chatham), none (Kolkata), and clocks that change at midnight itself (Santiago, Havana, Asuncion).
const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Europe/Dublin',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Asia/Kolkata',
  'America/Santiago',
  'America/Havana',
  'America/Asuncion',
  'Asia/Beirut',
];
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: await createTestDatabase() });
  await client.connect();
});
afterAll(async () => {
  await client.end();
});

describe('period bounds in code', () => {
  it.each(ZONES)('agree with Postgres in %s for every month of 2019 to 2026', async (zone) => {
    const periods = periodsBetween('2019-01', '2026-12');
    const { rows } = await client.query<{ period: string; from: Date; to: Date }>(
      `select period, (period || '-01')::date::timestamp at time zone $1::text as "from",
              ((period || '-01')::date + interval '1 month')::timestamp at time zone $1::text as "to"
         from unnest($2::text[]) as period`,
      [zone, periods],
    );
    const fromCode = periods.map((period) => ({ period, ...periodBounds(period, zone) }));
    expect(fromCode.map(({ period, from, to }) => [period, from.toISOString(), to.toISOString()])).toEqual(
      rows.map(({ period, from, to }) => [period, from.toISOString(), to.toISOString()]),
    );
  });

  it('takes a midnight the clock springs over or repeats as Postgres does', async () => {
    // Every day of the years around a few midnight changes: Santiago and Asuncion spring over midnight,
    // Havana and Santiago repeat it when they fall back.
    const days: string[] = [];
    for (let at = Date.parse('2022-01-01'); at < Date.parse('2025-01-01'); at += 86_400_000)
      days.push(new Date(at).toISOString().slice(0, 10));
    for (const zone of ['America/Santiago', 'America/Havana', 'America/Asuncion', 'America/New_York']) {
      const { rows } = await client.query<{ at: Date }>(
        'select day::date::timestamp at time zone $1::text as at from unnest($2::text[]) as day',
        [zone, days],
      );
      expect(days.map((day) => `${zone} ${day} ${localMidnight(day, zone).toISOString()}`)).toEqual(
        rows.map(({ at }, index) => `${zone} ${days[index]} ${at.toISOString()}`),
      );
    }
  });
});
