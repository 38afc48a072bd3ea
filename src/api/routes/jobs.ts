import { z } from 'zod';
import { enqueueTo } from '../../queue/enqueue.ts';
import { queues } from '../../queue/queues.ts';
import { describeIssues } from '../../zodIssues.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { single } from './envelope.ts';
import { findUnstorableText } from './params.ts';
import { json, refused, route } from './route.ts';

// The queues POST /api/jobs/:name starts: the registry's scheduled ones, each with the payload schema it parses.
const scheduledJobs = Object.entries(queues)
  .filter(([, queue]) => 'scheduled' in queue && queue.scheduled)
  .map(([name, queue]) => ({ name, payloadSchema: queue.payloadSchema as z.ZodType }));
const scheduledNames = scheduledJobs.map((job) => job.name);

const noSuchJob = (names: string[]) =>
  new HttpError(404, 'job_not_found', `no such job; known: ${names.join(', ') || 'none'}`);

/** A job's payload schema, titled with the job's name in the document. */
function titledPayload(job: (typeof scheduledJobs)[number]) {
  const payload = job.payloadSchema.clone();
  schemas.components.add(payload, { title: job.name, description: `The payload of \`${job.name}\`.` });
  return payload;
}

/** Starts a scheduled job now; the body, if any, is the job's payload (e.g. a report date). */
export const startJobRoute = route({
  method: 'post',
  path: '/api/jobs/{name}',
  tag: 'Operations',
  auth: 'admin',
  summary: 'Run a scheduled job now',
  description: `The body, if any, is the job's payload: ${scheduledNames.map((name) => `\`${name}\``).join(', ')}.`,
  // The handler checks the name against the app's own job list (tests add their own jobs to it); the document
  // lists the registry's, which is that list in every process.
  params: z.object({ name: schemas.documentedAs(z.string(), { enum: scheduledNames }) }),
  body: { required: false, content: json(z.union(scheduledJobs.map(titledPayload))), json: '16kb' },
  answers: {
    202: {
      description: 'Queued.',
      content: json(schemas.single('JobEnvelope', 'job', schemas.jobStartedSchema, 'A queued job.')),
    },
    404: refused('No scheduled job of that name.'),
    422: refused('The payload is not what the job takes.'),
  },
  handler:
    (deps) =>
    async (req, res, { params }) => {
      const scheduled = deps.jobs.filter((candidate) => candidate.scheduled);
      const job = scheduled.find((candidate) => candidate.name === params.name);
      if (!job) throw noSuchJob(scheduled.map((candidate) => candidate.name));
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
    },
});
