import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Queryable } from '../db/pool.ts';
import { insertReport } from './queries.ts';
import { renderCsv } from './renderCsv.ts';
import { renderHtml } from './renderHtml.ts';
import type { Report } from './reportSections.ts';

export const reportId = (id: number) => `rpt_${id}`;

/** Stores a report, and when REPORTS_DIR is set also writes it there as .json, .csv and .html. */
export async function saveReport(
  db: Queryable,
  report: Report,
  reportsDir: string | undefined,
): Promise<string> {
  const period = report.kind === 'daily' ? report.date : null;
  const id = reportId(
    await insertReport(db, {
      kind: report.kind,
      period,
      body: report,
      createdAt: new Date(report.generated_at),
    }),
  );
  if (reportsDir) {
    await mkdir(reportsDir, { recursive: true });
    const base = path.join(reportsDir, `${report.kind}${period ? `-${period}` : ''}-${id}`);
    await writeFile(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(`${base}.csv`, [...renderCsv(report)].join(''));
    await writeFile(`${base}.html`, renderHtml(report, id));
  }
  return id;
}
