/** A table of a report: named columns, and which hold cents (shown as money). */
export type Section = {
  name: string;
  title: string;
  columns: string[];
  money: string[];
  rows: Record<string, unknown>[];
};
