import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Queryable } from '../db/pool.ts';
import { insertReport, type ReportKind } from './queries.ts';
import { renderCsv } from './renderCsv.ts';
import { renderHtml } from './renderHtml.ts';
import type { Report } from './reportSections.ts';

export const reportId = (id: number) => `rpt_${id}`;

/** How a kind of report is written as files: its CSV and printable HTML, and the files' name. */
export type ReportFiles<Body> = {
  csv: (body: Body) => string;
  html: (body: Body, id: string) => string;
  /** The name the files take in REPORTS_DIR, without extension. */
  name: (stored: { kind: ReportKind; period: string | null; id: string }) => string;
};

/** The daily and fee-configuration reports: their sections as CSV and HTML, named by kind, day and id. */
export const SECTION_FILES: ReportFiles<Report> = {
  csv: (report) => [...renderCsv(report)].join(''),
  html: renderHtml,
  name: ({ kind, period, id }) => `${kind}${period ? `-${period}` : ''}-${id}`,
};

/**
 * Stores a report of any kind (GET /api/reports lists it), and when REPORTS_DIR is set also writes it there as
 * .json, .csv and .html. `period` is the day (YYYY-MM-DD) or month (YYYY-MM) it covers, or null.
 */
export async function storeReport<Body>(
  db: Queryable,
  report: { kind: ReportKind; period: string | null; body: Body; generatedAt: Date },
  files: ReportFiles<Body>,
  reportsDir: string | undefined,
): Promise<string> {
  const id = reportId(await insertReport(db, { ...report, createdAt: report.generatedAt }));
  if (reportsDir) {
    await mkdir(reportsDir, { recursive: true });
    const base = path.join(reportsDir, files.name({ kind: report.kind, period: report.period, id }));
    await writeFile(`${base}.json`, `${JSON.stringify(report.body, null, 2)}\n`);
    await writeFile(`${base}.csv`, files.csv(report.body));
    await writeFile(`${base}.html`, files.html(report.body, id));
  }
  return id;
}

/** Stores a daily or fee-configuration report (storeReport). */
export function saveReport(db: Queryable, report: Report, reportsDir: string | undefined): Promise<string> {
  const period = report.kind === 'daily' ? report.date : null;
  const stored = { kind: report.kind, period, body: report, generatedAt: new Date(report.generated_at) };
  return storeReport(db, stored, SECTION_FILES, reportsDir);
}
