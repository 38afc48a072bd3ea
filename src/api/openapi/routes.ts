import { createRequire } from 'node:module';
import path from 'node:path';
import helmet from 'helmet';
import { z } from 'zod';
import { HttpError } from '../errors.ts';
import { json, refused, route, text } from '../routes/route.ts';

const swaggerUi = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const viewer = path.join(import.meta.dirname, 'viewer');

// The viewer's files, by name: nothing else of the package (or of this folder) is served.
const FILES = new Map([
  ['swagger-ui.css', path.join(swaggerUi, 'swagger-ui.css')],
  ['swagger-ui-bundle.js', path.join(swaggerUi, 'swagger-ui-bundle.js')],
  ['viewer.js', path.join(viewer, 'viewer.js')],
]);

/**
 * The viewer runs scripts, which the console's policy forbids: its own policy allows this origin's scripts and
 * stylesheets (and the data: images of Swagger UI's stylesheet), fetches from this origin only, never framed.
 */
export const viewerHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
});

// No token: the document and its viewer describe the API and hold no data.
export const documentRoute = route({
  method: 'get',
  path: '/api/openapi.json',
  tag: 'Documentation',
  auth: 'none',
  summary: 'This document',
  answers: { 200: { description: 'OpenAPI 3.1.', content: json(z.record(z.string(), z.unknown())) } },
  handler: (deps) => (_req, res) => {
    res.json(deps.openApiDocument());
  },
});

export const viewerRoute = route({
  method: 'get',
  path: '/api/docs',
  tag: 'Documentation',
  auth: 'none',
  summary: 'This document, to read in a browser',
  answers: { 200: { description: 'The viewer page.', content: { 'text/html': text } } },
  handler: () => (_req, res) => {
    res.type('text/html; charset=utf-8').sendFile(path.join(viewer, 'index.html'));
  },
});

export const viewerFileRoute = route({
  method: 'get',
  path: '/api/docs/{file}',
  tag: 'Documentation',
  auth: 'none',
  summary: "The viewer's script and stylesheet",
  params: z.object({ file: z.string() }),
  answers: {
    200: { description: 'The file.', content: { 'text/javascript': text, 'text/css': text } },
    404: refused('Not a file of the viewer.'),
  },
  handler:
    () =>
    (_req, res, { params }) => {
      const file = FILES.get(params.file);
      if (!file) throw new HttpError(404, 'resource_not_found', 'no such file of the viewer');
      res.sendFile(file, { maxAge: '1h' });
    },
});
