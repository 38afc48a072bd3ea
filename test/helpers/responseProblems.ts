/**
 * Answers the response check (responseCheck.ts) found outside their route's declaration, kept until the
 * running test ends: `responseCheckSetup.ts` fails that test with them. No imports, so a unit test's setup
 * loads nothing of the app.
 */
const problems: string[] = [];

export function recordResponseProblem(problem: string): void {
  problems.push(problem);
}

export function takeResponseProblems(): string[] {
  return problems.splice(0);
}
