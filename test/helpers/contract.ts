import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/api/openapi/document.ts';

type Answer = { description: string; content?: Record<string, { schema: unknown }> };
type Route = {
  template: string;
  pattern: RegExp;
  literals: number;
  methods: Record<string, { responses: Record<string, Answer> }>;
};
export type SeenResponse = {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
  text?: string;
};

// Paths outside these are not the API's (the console, `/`): the document does not describe them.
const SCOPE = /^\/(api|webhooks|healthz|readyz|metrics)(\/|$)/i;
const DOCUMENT_ID = 'tally-openapi';

const compiled = new Map<string, ValidateFunction>();
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Built on the first response checked, once per test file (vitest isolates files): one that calls no API pays nothing.
let checker: { ajv: Ajv2020; routes: Route[] } | null = null;
function loaded() {
  if (checker) return checker;
  const document = openApiDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema(document as object, DOCUMENT_ID);
  checker = { ajv, routes: routesOf(document.paths) };
  return checker;
}

function routesOf(paths: Record<string, unknown>): Route[] {
  return Object.entries(paths)
    .map(([template, methods]) => {
      const parts = template.split(/\{[^}]+\}/);
      return {
        template,
        // Express matches case-insensitively and ignores one trailing slash; a parameter is one segment.
        pattern: new RegExp(`^${parts.map(escapeRegExp).join('[^/]+')}/?$`, 'i'),
        literals: parts.join('').length,
        methods: methods as Route['methods'],
      };
    })
    .sort((a, b) => b.literals - a.literals);
}

const pointer = (...tokens: string[]) =>
  `${DOCUMENT_ID}#/${tokens.map((token) => token.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

function validatorFor(ref: string): ValidateFunction {
  let validate = compiled.get(ref);
  if (!validate) {
    validate = loaded().ajv.compile({ $ref: ref });
    compiled.set(ref, validate);
  }
  return validate;
}

/** The route of the document that describes `path` (the most specific one), or undefined. */
export function describedRoute(path: string): Route | undefined {
  return loaded().routes.find((route) => route.pattern.test(path));
}

/**
 * Why a response breaks the document, or null when it keeps it: its status is declared for the route, its
 * media type is one the status declares, and its body matches that media type's schema. A path or method
 * the document does not describe must be refused with the error body, as every unknown route is.
 */
export function contractProblem(method: string, path: string, response: SeenResponse): string | null {
  if (!SCOPE.test(path)) return null;
  const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  const route = describedRoute(path);
  const operation = route?.methods[verb];
  const where = `${method} ${path} → ${response.status}`;
  if (!route || !operation) {
    if (response.status < 400 || response.status >= 500)
      return `${where}: the document describes no such route, yet it was not refused`;
    return bodyProblem(where, pointer('components', 'schemas', 'Error'), response);
  }
  const answer = operation.responses[String(response.status)];
  if (!answer) return `${where}: status not declared for ${verb.toUpperCase()} ${route.template}`;
  const media = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!answer.content)
    return media && response.text ? `${where}: declared without a body, got ${media}` : null;
  if (!(media in answer.content))
    return `${where}: content type ${media || 'none'} not declared (${Object.keys(answer.content).join(', ')})`;
  if (method.toLowerCase() === 'head') return null;
  const ref = pointer(
    'paths',
    route.template,
    verb,
    'responses',
    String(response.status),
    'content',
    media,
    'schema',
  );
  return bodyProblem(where, ref, response);
}

function bodyProblem(where: string, ref: string, response: SeenResponse): string | null {
  const media = (response.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  const body = media === 'application/json' ? response.body : response.text;
  const validate = validatorFor(ref);
  if (validate(body)) return null;
  const [first] = validate.errors ?? [];
  return `${where}: body breaks the document at ${first?.instancePath || '/'}: ${first?.message} (${first?.schemaPath})`;
}
