import express, { type Router } from 'express';
import { presentDecline } from '../../declines/presentDecline.ts';
import { RETRY_ADVICE } from '../../domain/declines.ts';
import type { AppDeps } from '../deps.ts';
import { listDeclinesOfRequest } from '../routes/declines.ts';
import { pageLinks, renderPage } from './render.ts';

const FILTERS = ['advice', 'network', 'account_id', 'since'] as const;

/** Declines with the API's filters and cursors: each decline's codes, their meanings and the advice in words. */
export function declinePages(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/declines', async (req, res) => {
    const { data, pageInfo } = await listDeclinesOfRequest(deps, req.query);
    // The filters as typed, for the form (parseQuery has checked them).
    const typed = Object.fromEntries(
      FILTERS.map((name) => [name, typeof req.query[name] === 'string' ? req.query[name] : '']),
    );
    renderPage(req, res, 'declines', {
      declines: data.map(presentDecline),
      typed,
      adviceValues: RETRY_ADVICE,
      links: pageLinks(req, pageInfo),
    });
  });
  return router;
}
