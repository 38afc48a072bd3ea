import express, { type Router } from 'express';
import type { AppDeps } from '../app.ts';
import { HttpError } from '../errors.ts';
import { single } from './envelope.ts';

/** Starts a scheduled job now; the body, if any, is the job's payload (e.g. a report date). */
export function jobRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.post('/jobs/:name', express.json({ limit: '16kb' }), async (req, res) => {
    const job = deps.jobs.find((candidate) => candidate.scheduled && candidate.name === req.params.name);
    if (!job) {
      const names = deps.jobs.filter((candidate) => candidate.scheduled).map((candidate) => candidate.name);
      throw new HttpError(404, 'job_not_found', `no such job; known: ${names.join(', ') || 'none'}`);
    }
    const parsed = job.payloadSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      const problems = parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`,
      );
      throw new HttpError(422, 'payload_invalid', problems.join('; '));
    }
    const jobId = await deps.boss.send(job.name, parsed.data as object);
    res.status(202).json(single('job', jobId, { id: jobId, name: job.name, payload: parsed.data }));
  });
  return router;
}
