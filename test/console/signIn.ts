import { parse } from 'node-html-parser';
import request from 'supertest';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';

/** The CSRF token of the first form on a page. */
export function csrfOf(html: string): string {
  const token = parse(html).querySelector('input[name="_csrf"]')?.getAttribute('value');
  expect(token).toBeTruthy();
  return token as string;
}

/** The page as a reader sees it: its text, after the browser has decoded every entity. */
export function textOf(html: string): string {
  return parse(html).querySelector('main')?.textContent ?? '';
}

/** A cookie-keeping client signed in to the console with `token`. */
export async function signIn(t: TestApp, token: string) {
  const agent = request.agent(t.app);
  const form = await agent.get('/console/sign-in');
  expect(form.status).toBe(200);
  const response = await agent
    .post('/console/sign-in')
    .type('form')
    .send({ token, _csrf: csrfOf(form.text) });
  expect(response.status).toBe(303);
  expect(response.headers.location).toBe('/console');
  return agent;
}

/** GETs a console page and returns it with the CSRF token of its forms. */
export async function page(agent: ReturnType<typeof request.agent>, path: string) {
  const response = await agent.get(path);
  return { response, html: response.text, csrf: () => csrfOf(response.text) };
}
