import path from 'node:path';
import { Eta } from 'eta';
import type { Request, Response } from 'express';
import { redactCardNumbers } from '../../domain/cardNumbers.ts';
import { formatMoney } from '../../domain/money.ts';
import type { PageInfo } from '../routes/envelope.ts';

// Eta escapes every `<%=` output; `<%~` is used only for markup Tally's own templates produced.
const eta = new Eta({ views: path.join(import.meta.dirname, 'views'), autoEscape: true, cache: true });

const time = (value: unknown) =>
  value === null || value === undefined
    ? '—'
    : new Date(value as string).toISOString().replace('T', ' ').slice(0, 19);

/** Helpers every template may call; none of them returns markup, so their output is escaped too. */
const helpers = {
  money: (cents: unknown, currency: unknown) =>
    typeof cents === 'number' ? formatMoney(cents, typeof currency === 'string' ? currency : null) : '—',
  time,
  /** A lag in seconds for reading: `0 s`, `42 s`, `3 min 20 s`, `5 h 12 min`. */
  seconds: (value: number) => {
    const whole = Math.round(value);
    if (whole < 60) return `${whole} s`;
    if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
    return `${Math.floor(whole / 3600)} h ${Math.floor((whole % 3600) / 60)} min`;
  },
  /** A stored body or value for reading: card numbers cut to the last four, indented JSON. */
  json: (value: unknown) => JSON.stringify(redactCardNumbers(value), null, 2) ?? 'null',
};

/** Links to the previous and next page that keep the current filters. */
export function pageLinks(req: Request, pageInfo: PageInfo) {
  const base = new URLSearchParams(
    Object.entries(req.query).filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === 'string' && entry[0] !== 'after_cursor' && entry[0] !== 'before_cursor',
    ),
  );
  const link = (name: string, cursor: string | null) => {
    if (!cursor) return null;
    const query = new URLSearchParams(base);
    query.set(name, cursor);
    return `${req.baseUrl}${req.path}?${query}`;
  };
  return {
    previous: pageInfo.has_previous ? link('before_cursor', pageInfo.start_cursor) : null,
    next: pageInfo.has_next ? link('after_cursor', pageInfo.end_cursor) : null,
  };
}

/** Renders a console page inside the layout, with who is signed in and the CSRF token for its forms. */
export function renderPage(
  req: Request,
  res: Response,
  view: string,
  data: Record<string, unknown>,
  status = 200,
) {
  const html = eta.render(`./${view}`, {
    ...helpers,
    ...data,
    principal: req.principal ?? null,
    csrfToken: req.csrfToken?.() ?? '',
    path: req.baseUrl + req.path,
  });
  res.status(status).type('text/html; charset=utf-8').send(html);
}
