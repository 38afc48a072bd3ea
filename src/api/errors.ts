import type { ErrorRequestHandler, RequestHandler } from 'express';
import { CloseRefusedError } from '../close/closePeriod.ts';
import { JournalRefusedError } from '../close/periodJournal.ts';
import { PeriodError } from '../close/periodService.ts';
import { WorkflowError } from '../findings/changeFindings.ts';
import type { Logger } from '../logger.ts';

/** An error whose status, code and message are safe to show the client. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
    this.code = code;
  }
}

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

// body-parser's own errors carry a `type`; these are the client's fault and safe to name.
const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  'request.aborted': [400, 'request_aborted', 'request body was not completely received'],
  'request.size.invalid': [400, 'request_size_invalid', 'body length does not match Content-Length'],
  'encoding.unsupported': [415, 'encoding_unsupported', 'unsupported content encoding'],
  'charset.unsupported': [415, 'charset_unsupported', 'unsupported charset'],
  'entity.parse.failed': [400, 'invalid_json', 'body is not valid JSON'],
};

/** Express's own failure to percent-decode a path parameter (router `decodeParam`): the client's input. */
export function isPathDecodeError(err: unknown): boolean {
  return err instanceof URIError && (err as URIError & { status?: unknown }).status === 400;
}

export const notFound: RequestHandler = (_req, res) => {
  res.status(404).json(errorBody('resource_not_found', 'no such endpoint'));
};

const WORKFLOW_ANSWERS = {
  not_found: [404, 'resource_not_found'],
  invalid_transition: [409, 'invalid_transition'],
  note_required: [422, 'note_required'],
} as const satisfies Record<WorkflowError['reason'], readonly [number, string]>;

/**
 * The one mapping of the stages' refusals to answers, for the API and the console alike: each names its
 * parameter or reason in words safe to show. Anything else is returned as it is.
 */
export function asHttpError(err: unknown): unknown {
  if (err instanceof PeriodError) return new HttpError(400, 'invalid_parameter', err.message);
  if (err instanceof JournalRefusedError) return new HttpError(err.status, err.code, err.message);
  if (err instanceof CloseRefusedError)
    return new HttpError(err.reason === 'note_required' ? 422 : 409, err.code, err.message);
  if (err instanceof WorkflowError) {
    const [status, code] = WORKFLOW_ANSWERS[err.reason];
    return new HttpError(status, code, err.message);
  }
  return err;
}

/** The one error handler: known errors answer with their own words, anything else is logged and hidden. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (raised, req, res, _next) => {
    const err = asHttpError(raised) as typeof raised;
    if (err instanceof HttpError) {
      if (err.status >= 500) log.error(err.cause ?? err, `${req.method} ${req.path} failed: ${err.message}`);
      res.status(err.status).json(errorBody(err.code, err.message));
      return;
    }
    // Each route has its own limit (1 MiB for a delivery, 16 KiB for a JSON body): the message says which.
    if (err?.type === 'entity.too.large' && typeof err.limit === 'number') {
      res.status(413).json(errorBody('payload_too_large', `body exceeds ${sizeText(err.limit)}`));
      return;
    }
    const known = typeof err?.type === 'string' ? CLIENT_ERRORS[err.type] : undefined;
    if (known) {
      res.status(known[0]).json(errorBody(known[1], known[2]));
      return;
    }
    // Routers with path parameters name the parameter (routes/mountRoutes.ts, routes/params.ts); this is the
    // net for any other route.
    if (isPathDecodeError(err)) {
      res.status(400).json(errorBody('invalid_parameter', 'path: must be valid percent-encoded UTF-8'));
      return;
    }
    log.error(err, `${req.method} ${req.path} failed`);
    res.status(500).json(errorBody('internal_server_error', 'unexpected error'));
  };
}

/** A body limit as people read it: `1 MiB`, `16 KiB`, or bytes. */
function sizeText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
