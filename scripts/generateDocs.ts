// Writes the generated reference pages from the code's own schemas: docs/configuration.md and
// .env.example. `npm run docs`; test/docs/generated.test.ts fails when the committed files differ.
import { writeFileSync } from 'node:fs';
import { renderConfigurationPage, renderEnvExample } from './docs/configurationDocs.ts';

const root = new URL('../', import.meta.url);
writeFileSync(new URL('docs/configuration.md', root), renderConfigurationPage());
writeFileSync(new URL('.env.example', root), renderEnvExample());
console.log('wrote docs/configuration.md and .env.example');
