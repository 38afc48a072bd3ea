import type { Request, Response } from 'express';
import { z } from 'zod';
import { enqueueTo } from '../../queue/enqueue.ts';
import { queues } from '../../queue/queues.ts';
import { describeIssues } from '../../zodIssues.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { single } from './envelope.ts';
import { findUnstorableText } from './params.ts';
import { json, type RouteDeps, refused, route } from './route.ts';

/**
 * The queues POST /api/jobs/<name> starts: the registry's scheduled ones, each with the payload it takes and
 * no other field (an object schema made strict: a misspelt or foreign field is refused, not dropped).
 */
const scheduledJobs = Object.entries(queues)
  .filter(([, queue]) => 'scheduled' in queue && queue.scheduled)
  .map(([name, queue]) => {
    const schema = queue.payloadSchema as z.ZodType;
    return { name, payloadSchema: schema instanceof z.ZodObject ? schema.strict() : schema };
  });
type ScheduledJob = (typeof scheduledJobs)[number];

const noSuchJob = (names: string[]) =>
  new HttpError(404, 'job_not_found', `no such job; known: ${names.join(', ') || 'none'}`);

const started = {
  description: 'Queued.',
  content: json(schemas.single('JobEnvelope', 'job', schemas.jobStartedSchema, 'A queued job.')),
};

/** The fields a job takes, for the message that refuses the others. */
function fieldsOf(job: ScheduledJob): string {
  const fields = job.payloadSchema instanceof z.ZodObject ? Object.keys(job.payloadSchema.shape) : [];
  return fields.length === 0 ? 'it takes none' : `it takes ${fields.join(', ')}`;
}

/**
 * The fields named back to the client: a name like `account_id` as it was sent; any other (a control
 * character, a digit run that may be a card number) only counted, since an answer never repeats such input.
 */
function fieldNames(keys: string[]): string {
  const named = keys.filter((key) => /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(key));
  const others = keys.length - named.length;
  const unnamed = others === 0 ? [] : [`${others} other field${others === 1 ? '' : 's'}`];
  return [...named.map((key) => `body.${key}`), ...unnamed].join(', ');
}

/** One operation per scheduled job, its body the job's own payload: a client can tell which body fits. */
export const startJobRoutes = scheduledJobs.map((job) => {
  const payload = job.payloadSchema.clone();
  schemas.components.add(payload, { title: job.name, description: `The payload of \`${job.name}\`.` });
  return route({
    method: 'post',
    path: `/api/jobs/${job.name}`,
    tag: 'Operations',
    auth: 'admin',
    summary: `Run ${job.name} now`,
    description: `The body, if any, is the job's payload; a field it does not take is refused (${fieldsOf(job)}).`,
    body: { required: false, content: json(payload), json: '16kb' },
    answers: {
      202: started,
      400: refused('A field the job does not take (`invalid_parameter`, naming it).'),
      404: refused('This process runs no such job.'),
      422: refused('The payload is not what the job takes (`payload_invalid`).'),
    },
    handler: (deps) => (req, res) => startJob(deps, job, req, res),
  });
});

/** Any other name: 404 with the names there are. */
export const unknownJobRoute = route({
  method: 'post',
  path: '/api/jobs/{name}',
  tag: 'Operations',
  auth: 'admin',
  summary: 'Any other name: no such job',
  description: `The jobs there are: ${scheduledJobs.map(({ name }) => `\`${name}\``).join(', ')}, each its own operation.`,
  params: z.object({ name: z.string() }),
  answers: { 404: refused('No scheduled job of that name; the message lists the known ones.') },
  handler: (deps) => () => {
    throw noSuchJob(deps.jobs.filter((job) => job.scheduled).map((job) => job.name));
  },
});

async function startJob(deps: RouteDeps, declared: ScheduledJob, req: Request, res: Response) {
  // The app's own job of that name (tests give theirs a handler of their own), parsed as declared.
  const job = deps.jobs.find((candidate) => candidate.scheduled && candidate.name === declared.name);
  if (!job) throw noSuchJob(deps.jobs.filter((candidate) => candidate.scheduled).map(({ name }) => name));
  // express.json accepts arrays too, and pg-boss stores a payload as a jsonb object.
  const body: unknown = req.body ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError(422, 'payload_invalid', 'body: must be a JSON object');
  const parsed = declared.payloadSchema.safeParse(body);
  if (!parsed.success) {
    const foreign = parsed.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' ? issue.keys : [],
    );
    if (foreign.length > 0)
      throw new HttpError(
        400,
        'invalid_parameter',
        `${fieldNames(foreign)}: not a field of ${job.name} (${fieldsOf(declared)})`,
      );
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
}
