import express, { type Router } from 'express';
import { enqueueTo } from '../../queue/enqueue.ts';
import { describeIssues } from '../../zodIssues.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { single } from './envelope.ts';
import { findUnstorableText, undecodablePathParam } from './params.ts';

/** Starts a scheduled job now; the body, if any, is the job's payload (e.g. a report date). */
export function jobRoutes(deps: AppDeps): Router {
  const router = express.Router();
  // `:name` is declared by the job list itself: anything that is not a scheduled job's name is 404.
  router.post('/jobs/:name', express.json({ limit: '16kb' }), async (req, res) => {
    const scheduled = deps.jobs.filter((candidate) => candidate.scheduled);
    const job = scheduled.find((candidate) => candidate.name === req.params.name);
    if (!job) {
      const names = scheduled.map((candidate) => candidate.name);
      throw new HttpError(404, 'job_not_found', `no such job; known: ${names.join(', ') || 'none'}`);
    }
    // express.json accepts arrays too, and pg-boss stores a payload as a jsonb object.
    const body: unknown = req.body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new HttpError(422, 'payload_invalid', 'body: must be a JSON object');
    const parsed = job.payloadSchema.safeParse(body);
    if (!parsed.success) {
      throw new HttpError(422, 'payload_invalid', describeIssues(parsed.error, 'body'));
    }
    // Postgres jsonb refuses NUL and unpaired surrogates, which would otherwise surface as a 500 from send.
    const unstorable = findUnstorableText(parsed.data);
    if (unstorable !== null)
      throw new HttpError(422, 'payload_invalid', `${unstorable}: must be text without control characters`);
    // Parsed again there: the schema every sender goes through.
    const [jobId = null] = await enqueueTo(deps.boss, job, [parsed.data]);
    // Every change is attributed to the token that made it.
    deps.log.info({ job: job.name, jobId, actor: req.principal?.name }, 'job started through the API');
    res.status(202).json(single('job', jobId, { id: jobId, name: job.name, payload: parsed.data }));
  });
  router.use(undecodablePathParam('name'));
  return router;
}
