import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Clock } from '../src/shared/context.js';
import type { Engine } from '../src/shared/db/index.js';
import { client, startApp, type TestApp } from './helpers.js';
import { PASSWORD } from './people-helpers.js';

export const CHROMIUM = process.env.RUTA_CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const skipNote = hasChromium ? '' : ` [skipped: no Chromium at ${CHROMIUM}; apt-get install chromium]`;
export const ROOT = join(import.meta.dirname, '..');
export const IMAGES = join(ROOT, 'docs', 'images');

/**
 * The console and courier app are served from dist/web, which `npm ci` builds (prepare). A checkout
 * that has not been built is built here once, so the browser tests never pass against the 503 page.
 */
export function ensureWebBuilt(): void {
  if (existsSync(join(ROOT, 'dist', 'web', 'console', 'index.html'))) return;
  execSync('npm run build', { cwd: ROOT, stdio: 'inherit' });
}

/**
 * A test app for a browser: the web apps built, the server listening on a free loopback port that
 * is also its public URL (links in pages and emails point at it). Map tiles come from a port
 * nothing listens on: maps must draw their markers and lines without them, and no test reaches
 * the internet.
 */
export async function serveApp(
  engine: Engine,
  env: Record<string, string> = {},
  opts: { clock?: Clock; publicHost?: string } = {},
): Promise<{ t: TestApp; base: string }> {
  ensureWebBuilt();
  const port = await freePort();
  const origin = `http://${opts.publicHost ?? '127.0.0.1'}:${port}`;
  const t = await startApp(
    engine,
    {
      RUTA_MAP_TILES_URL: 'http://127.0.0.1:9/{z}/{x}/{y}.png',
      RUTA_PUBLIC_URL: origin,
      ...env,
    },
    opts,
  );
  const listening = await t.app.listen({ port, host: '127.0.0.1' });
  return { t, base: opts.publicHost ? origin : listening };
}

/**
 * Chromium, headless. `publicHost` names the server by a host name Chromium resolves to 127.0.0.1:
 * a page there is plain http to another machine as far as the browser knows, not a secure context
 * as localhost is (what a phone sees at a Wi-Fi address).
 */
export async function launch(opts: { publicHost?: string } = {}): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(opts.publicHost ? [`--host-resolver-rules=MAP ${opts.publicHost} 127.0.0.1`] : []),
    ],
  });
}

/** What useBrowserApp gives a describe block; each part is read inside tests, once its beforeAll has run. */
export interface BrowserApp {
  readonly t: TestApp;
  /** The server's origin, e.g. `http://127.0.0.1:40123`. */
  readonly base: string;
  readonly browser: Browser;
}

export interface BrowserAppOptions {
  /** The app's clock (see serveApp). */
  clock?: Clock;
  /** Serve and browse the app at http://<publicHost>:<port> instead of 127.0.0.1 (see launch). */
  publicHost?: string;
  /** Runs once the app is up and before Chromium is launched: the block's accounts, orders, workers. */
  setup?: (t: TestApp) => Promise<void>;
  /** Runs once the browser is closed and before the app is: stops what `setup` started against the app. */
  teardown?: () => Promise<void>;
}

/**
 * The app and the browser of a describe block, their lifetime in one place instead of a copy of the
 * same beforeAll/afterAll in every browser test file: before the block's tests, serveApp(engine,
 * env, { clock }), then `setup`, then launch(); after them, the browser closed, then `teardown`, then
 * the app closed. Without Chromium nothing starts (the tests are `it.skipIf(!hasChromium)`).
 */
export function useBrowserApp(
  engine: Engine,
  env: Record<string, string> = {},
  opts: BrowserAppOptions = {},
): BrowserApp {
  const { setup, teardown, ...serveOpts } = opts;
  let t: TestApp | undefined;
  let base: string | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!hasChromium) return;
    const served = await serveApp(engine, env, serveOpts);
    ({ t, base } = served);
    await setup?.(served.t);
    browser = await launch({ publicHost: serveOpts.publicHost });
  });
  afterAll(async () => {
    await browser?.close();
    await teardown?.();
    await t?.close();
  });
  const ready = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`useBrowserApp: ${name} is read before the block's beforeAll set it`);
    return value;
  };
  return {
    get t() {
      return ready(t, 't');
    },
    get base() {
      return ready(base, 'base');
    },
    get browser() {
      return ready(browser, 'browser');
    },
  };
}

/**
 * A page in a context of its own (its own cookies), with `timeoutMs` for every wait and action. A
 * limit, not a speed check: the suite runs a fork more than the cores, so on CI's 2 cores three
 * files (browsers, servers, PostgreSQL) share them, and a page can wait seconds for a core.
 */
export async function openPage(browser: Browser, options: BrowserContextOptions, timeoutMs = 15_000): Promise<Page> {
  const page = await (await browser.newContext(options)).newPage();
  page.setDefaultTimeout(timeoutMs);
  return page;
}

/** A tiny valid PNG (a 2×2 image), standing in for a camera photo. */
export const PHOTO_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

/** A port free right now, so that RUTA_PUBLIC_URL can name the server's origin before it listens
 * (the session routes check Origin against it). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Collects what the page reports as Content-Security-Policy refusals: every page test expects none. */
/**
 * Waits until the planning form has its depot and couriers: they load after the page's heading, and
 * Optimize before that starts no plan (it only says "Choose a depot.").
 */
export async function planFormLoaded(page: Page): Promise<void> {
  await expect.poll(() => page.getByLabel('Depot').inputValue()).not.toBe('');
  await page
    .getByRole('group', { name: /^Couriers/ })
    .getByRole('checkbox')
    .first()
    .waitFor();
}

export function cspErrorsOf(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (/Content.Security.Policy|Refused to/i.test(msg.text())) errors.push(msg.text());
  });
  return errors;
}

/** Opens the console and submits its sign-in form; the caller waits for what it expects next. */
export async function submitSignIn(page: Page, base: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${base}/console/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * Signs a courier in on a phone page as the courier does it, instead of the same four lines in every
 * courier test: a sign-in code asked of the API with an operator key (what the console's "Sign in a
 * phone" shows), the courier app opened at `web.base`, the code typed, Sign in tapped. The page and
 * its context (viewport, location, offline, locale) are the caller's, and so is the wait for what
 * comes next: the route's heading, a stop, a note. A test of the sign-in screen itself (a wrong code,
 * the keyboard, the link's code) keeps its own steps.
 */
export async function signInPhone(
  page: Page,
  web: { readonly t: TestApp; readonly base: string },
  operatorKey: string,
  courierId: string,
): Promise<void> {
  const res = await client(web.t.app, operatorKey)('POST', `/v1/couriers/${courierId}/sign_in_codes`, {});
  const code: unknown = res.body?.code;
  if (typeof code !== 'string')
    throw new Error(`signInPhone: no sign-in code (${res.status} ${JSON.stringify(res.body)})`);
  await page.goto(`${web.base}/courier/`);
  await page.getByLabel('Sign-in code from your dispatcher').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A day held for a test: the server's clock and the pages' `Date` on one date in a zone, time still flowing. */
export interface HeldDay {
  /** The held date, YYYY-MM-DD in the zone. */
  date: string;
  /** The server's clock (give it to serveApp). */
  clock: Clock;
  /** Now on the held clock, in epoch ms (for a page: `context.clock.setSystemTime(day.now())`). */
  now(): number;
  /** Moves the clock to HH:MM of the held date, in the zone. */
  at(hhmm: string): void;
}

/**
 * Holds `date` at `hhmm` in `tz` (a zone without DST changes on that date, such as America/Lima):
 * the clock then runs on from there at the machine's pace, so timers, sessions and timeouts behave,
 * while the day is the same whatever the real time of day is.
 */
export function heldDay(tz: string, hhmm: string, date = '2030-03-04'): HeldDay {
  const epochOf = (time: string) => {
    const guess = Date.parse(`${date}T${time}:00Z`);
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    }).formatToParts(guess);
    const p = (t: string) => Number(parts.find((x) => x.type === t)?.value);
    const shown = Date.UTC(p('year'), p('month') - 1, p('day'), p('hour'), p('minute'));
    return guess - (shown - guess);
  };
  let offset = 0;
  const day: HeldDay = {
    date,
    clock: () => Date.now() + offset,
    now: () => Date.now() + offset,
    at(time) {
      offset = epochOf(time) - Date.now();
    },
  };
  day.at(hhmm);
  return day;
}
