import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';
import helmet from 'helmet';
import { HttpError } from '../errors.ts';
import { openApiDocument } from './document.ts';

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
const viewerHeaders = helmet({
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

/** GET /api/openapi.json and the viewer at /api/docs: no token, they describe the API and hold no data. */
export function openApiRoutes(): Router {
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  router.use('/docs', viewerHeaders);
  router.get('/docs', (_req, res) => {
    res.type('text/html; charset=utf-8').sendFile(path.join(viewer, 'index.html'));
  });
  router.get('/docs/:file', (req, res) => {
    const file = FILES.get(req.params.file);
    if (!file) throw new HttpError(404, 'resource_not_found', 'no such file of the viewer');
    res.sendFile(file, { maxAge: '1h' });
  });
  return router;
}
