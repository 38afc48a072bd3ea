import { parse } from 'node-html-parser';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('the console icon', () => {
  it('answers /favicon.ico, without signing in, with a 32 × 32 icon file cached for 30 days', async () => {
    const response = await request(t.app).get('/favicon.ico');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)$/);
    expect(response.headers['cache-control']).toBe('public, max-age=2592000');
    const icon = response.body as Buffer;
    // ICONDIR: reserved 0, type 1 (icon), one image; its entry: 32 × 32, 32 bits a pixel, a bitmap at byte 22.
    expect([icon.readUInt16LE(0), icon.readUInt16LE(2), icon.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect([icon[6], icon[7], icon.readUInt16LE(12), icon.readUInt32LE(18)]).toEqual([32, 32, 32, 22]);
    expect(icon.readUInt32LE(14)).toBe(icon.length - 22);
  });

  it('links an SVG icon from every page, served with the console’s assets', async () => {
    const signInPage = await request(t.app).get('/console/sign-in');
    const href = parse(signInPage.text).querySelector('link[rel="icon"]')?.getAttribute('href');
    expect(href).toBe('/console/assets/favicon.svg');
    const svg = await request(t.app).get(href as string);
    expect(svg.status).toBe(200);
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(String(svg.body)).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });
});
