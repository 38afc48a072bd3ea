import { afterAll, afterEach } from 'vitest';
import { takeResponseProblems } from './responseProblems.ts';

// Loaded by vitest (`setupFiles`): a test whose app answered outside a route's declaration fails, with each
// such answer named; one from a `beforeAll` fails the file's first test (or, with none after it, the file).
function failOnProblems() {
  const problems = takeResponseProblems();
  if (problems.length > 0)
    throw new Error(`answers their routes do not declare:\n${problems.map((p) => `- ${p}`).join('\n')}`);
}

afterEach(failOnProblems);
afterAll(failOnProblems);
