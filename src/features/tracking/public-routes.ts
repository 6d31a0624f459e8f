import type { OutgoingHttpHeaders } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { clientOf, MemoryRateLimitStore, WINDOW_MS } from '../../shared/rate-limit.js';
import { typedTrackingCode } from '../../shared/tracking-code.js';
import { bodyValidator } from '../../shared/validation.js';
import { chooseDay, giveInstructions, rate } from './actions.js';
import { pageAssets } from './assets.js';
import { type Lang, negotiateLang } from './i18n/index.js';
import { STREAMS_PER_CODE } from './live-caps.js';
import { TRACKING_HUB } from './live-hub.js';
import { brandCss, flashOf, pageCsp, renderFindPage, renderNotFoundPage, renderTrackingPage } from './page.js';
import { orderByCode, presentRow, publicTracking } from './public.js';
import type { PublicOrderRow } from './public-repo.js';
import {
  FeedbackBody,
  InstructionsBody,
  PublicTracking,
  RescheduleBody,
  TrackingCodeParams,
  TrackingFindQuery,
  TrackingLangQuery,
  TrackingPageQuery,
} from './public-schemas.js';

/** Customer actions per tracking code per minute (besides the public scope's limit per address). */
export const ACTIONS_PER_CODE_PER_MIN = 10;

/** Tracking state changes by the minute and the URL is a bearer secret: nothing may cache it or leak it onward. */
function privateHeaders(reply: FastifyReply): void {
  reply.header('Cache-Control', 'no-store');
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Robots-Tag', 'noindex, nofollow');
}

/** What the helpers read of a request: the code, `?lang=` and Accept-Language. */
interface CodeRequest {
  params: { tracking_code: string };
  query: { lang?: string };
  headers: FastifyRequest['headers'];
}
const langOf = (req: CodeRequest) => negotiateLang(req.query.lang, req.headers['accept-language']);

/** Keyless routes for end customers. Registered inside the public scope, which rate-limits per client address. */
export function publicTrackingRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Public tracking'];
  // One instance's count: a code's actions are few, and the per-address limit holds across instances.
  const perCode = new MemoryRateLimitStore();
  const limitCode = async (code: string) => {
    const now = ctx.clock();
    const windowStart = now - (now % WINDOW_MS);
    if ((await perCode.hit(`track:${code}`, windowStart)) > ACTIONS_PER_CODE_PER_MIN) {
      const reset = String(Math.ceil((windowStart + WINDOW_MS - now) / 1000));
      throw new ApiError('rate_limited', 'Too many changes for this delivery; try again in a minute.', undefined, {
        'Retry-After': reset,
      });
    }
  };
  const rowOf = async (req: CodeRequest) => {
    const row = await orderByCode(ctx, req.params.tracking_code);
    if (!row) throw notFound('tracking code', req.params.tracking_code.slice(0, 40), 'tracking_code');
    return row;
  };

  r.get(
    '/v1/public/tracking/:tracking_code',
    {
      schema: {
        tags,
        operationId: 'getPublicTracking',
        summary: 'Public tracking of a parcel by its tracking code (no API key)',
        description:
          'What an end customer may see: status, timeline (without positions), ETA and its window, stops before ' +
          "this one, the merchant's brand, the customer's first name and the destination district and city. " +
          "The courier's first name appears while the parcel is picked_up, in_transit, arriving or at_location, " +
          'its position only while it is on its way to this stop. Texts in `?lang=` or Accept-Language. ' +
          'Rate limited per client address.',
        security: [],
        params: TrackingCodeParams,
        querystring: TrackingLangQuery,
        response: { 200: PublicTracking, ...errorResponses(404, 429) },
      },
    },
    async (req, reply) => {
      privateHeaders(reply);
      // Public data with no credentials involved: a merchant's own site may fetch it from the browser.
      reply.header('Access-Control-Allow-Origin', '*');
      const view = await publicTracking(ctx, req.params.tracking_code, langOf(req));
      if (!view) throw notFound('tracking code', req.params.tracking_code.slice(0, 40), 'tracking_code');
      return view;
    },
  );

  r.get(
    '/track/:tracking_code',
    {
      schema: {
        tags,
        operationId: 'getTrackingPage',
        summary: 'Public tracking page (HTML, no API key)',
        description:
          'The same data as the JSON endpoint, as a page in the customer\u2019s language: a map, times in the ' +
          'delivery\u2019s zone, the customer\u2019s actions, and live updates through `/track/{code}/events`.',
        security: [],
        params: TrackingCodeParams,
        querystring: TrackingPageQuery,
        response: {
          200: { description: 'The tracking page', content: { 'text/html': { schema: Type.String() } } },
          404: {
            description: 'A friendly "parcel not found" page',
            content: { 'text/html': { schema: Type.String() } },
          },
          ...errorResponses(429),
        },
      },
    },
    async (req, reply) => {
      privateHeaders(reply);
      reply.type('text/html; charset=utf-8');
      const lang = langOf(req);
      reply.header('Content-Language', lang);
      reply.header('Vary', 'Accept-Language');
      const view = await publicTracking(ctx, req.params.tracking_code, lang);
      if (!view) {
        reply.header('Content-Security-Policy', pageCsp(undefined));
        return reply.code(404).send(renderNotFoundPage(req.params.tracking_code, lang));
      }
      const assets = pageAssets(ctx.config);
      reply.header('Content-Security-Policy', pageCsp(assets, brandCss(view.merchant.color)));
      return renderTrackingPage(view, assets, flashOf(view, req.query.done, req.query.failed));
    },
  );

  r.get(
    '/track',
    {
      schema: {
        tags,
        operationId: 'findTrackingPage',
        summary: 'Where a customer types a tracking code (HTML, no API key)',
        description:
          'A page with one box for the code. `?code=` answers 303 with the code\u2019s page (`/track/{code}`, grouped or lower-case codes read as on the label); a code that matches no delivery gets the "not found" page there.',
        security: [],
        querystring: TrackingFindQuery,
        response: {
          200: { description: 'The page with the box', content: { 'text/html': { schema: Type.String() } } },
          303: { description: 'To the tracking page of the code typed' },
          ...errorResponses(429),
        },
      },
    },
    async (req, reply) => {
      privateHeaders(reply);
      const lang = langOf({ params: { tracking_code: '' }, query: req.query, headers: req.headers });
      const typed = req.query.code?.trim() ?? '';
      if (typed !== '') {
        // The canonical code when it reads as one, else what was typed: its page says it matches nothing.
        const code = typedTrackingCode(typed) ?? typed.slice(0, 40);
        return reply.redirect(`/track/${encodeURIComponent(code)}?lang=${lang}`, 303);
      }
      reply.type('text/html; charset=utf-8');
      reply.header('Content-Language', lang);
      reply.header('Vary', 'Accept-Language');
      reply.header('Content-Security-Policy', pageCsp(undefined));
      return renderFindPage(lang);
    },
  );

  // The page's forms without its script (an old phone, a script blocked or not loaded yet): they
  // post form fields to the page itself, and the answer is a redirect back to it (post, redirect,
  // get), with the thanks or the failure named in `?done=` / `?failed=`. The same actions as the
  // JSON routes below, with their checks and their limits; hidden from the API document, which
  // has those. Form bodies are read in this scope only.
  app.register(async (forms) => {
    forms.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    forms.withTypeProvider<TypeBoxTypeProvider>().post(
      '/track/:tracking_code',
      {
        schema: {
          hide: true,
          params: TrackingCodeParams,
          querystring: TrackingLangQuery,
          body: Type.Record(Type.String(), Type.String()),
        },
      },
      async (req, reply) => {
        privateHeaders(reply);
        const lang = langOf(req);
        const row = await orderByCode(ctx, req.params.tracking_code);
        if (!row) {
          reply.type('text/html; charset=utf-8').header('Content-Security-Policy', pageCsp(undefined));
          return reply.code(404).send(renderNotFoundPage(req.params.tracking_code, lang));
        }
        const page = `/track/${row.tracking_code}?lang=${lang}`;
        const { do: action, ...fields } = req.body;
        try {
          await limitCode(row.tracking_code);
          await formAction(action, fields, row, lang);
          return reply.redirect(`${page}&done=${action}`, 303);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          const named = action === 'instructions' || action === 'reschedule' || action === 'feedback';
          return reply.redirect(named ? `${page}&failed=${action}` : page, 303);
        }
      },
    );
  });
  const checkInstructions = bodyValidator(InstructionsBody);
  const checkReschedule = bodyValidator(RescheduleBody);
  const checkFeedback = bodyValidator(FeedbackBody);
  /** One form's fields, read as the JSON route reads its body (a rating is a number there). */
  const formAction = async (action: string | undefined, f: Record<string, string>, row: PublicOrderRow, lang: Lang) => {
    if (action === 'instructions') {
      const body: InstructionsBody = { instructions: f.instructions ?? '', safe_place: f.safe_place ?? '' };
      const bad = checkInstructions(body);
      if (bad) throw bad;
      return giveInstructions(ctx, row, body, lang);
    }
    if (action === 'reschedule') {
      const body = { day: f.day ?? '' };
      const bad = checkReschedule(body);
      if (bad) throw bad;
      return chooseDay(ctx, row, body, lang);
    }
    if (action === 'feedback') {
      const rating = /^[1-5]$/.test(f.rating ?? '') ? Number(f.rating) : f.rating;
      const body = { rating, ...(f.comment ? { comment: f.comment } : {}) };
      const bad = checkFeedback(body);
      if (bad) throw bad;
      return rate(ctx, row, body as FeedbackBody, lang);
    }
    throw new ApiError('parameter_invalid', 'Unknown form.', 'do');
  };

  r.get(
    '/track/:tracking_code/events',
    {
      schema: {
        tags,
        operationId: 'streamTracking',
        summary: 'Live updates of one parcel for its tracking page (Server-Sent Events, no API key)',
        description:
          'Events `tracking` with `{status, rev, eta, stops, courier}`: `rev` grows with every event of the order ' +
          '(the page re-reads itself when it changes), `eta` and `stops` are texts in the page\u2019s language, ' +
          '`courier` is `{lat, lng}` only while the courier is on its way to this stop, at most every 5 s. ' +
          `At most ${STREAMS_PER_CODE} streams per code and RUTA_TRACK_STREAMS_PER_CLIENT per address (IPv6: per /64).`,
        security: [],
        params: TrackingCodeParams,
        querystring: TrackingLangQuery,
        response: {
          200: { description: 'An endless event stream', content: { 'text/event-stream': { schema: Type.String() } } },
          ...errorResponses(404, 429),
        },
      },
    },
    async (req, reply) => {
      privateHeaders(reply);
      const row = await rowOf(req);
      await ctx.instance.get(TRACKING_HUB).open(row, langOf(req), clientOf(req.ip), () => {
        // The hub writes frames to the response itself (live-hub.ts, FrameSink): Fastify's part
        // ends here, with the headers it has gathered (Request-Id and the rest) written as they are.
        reply
          .header('Content-Type', 'text/event-stream; charset=utf-8')
          .header('Cache-Control', 'no-store, no-transform')
          .header('X-Accel-Buffering', 'no')
          .hijack();
        reply.markAnswered();
        reply.raw.writeHead(200, reply.getHeaders() as OutgoingHttpHeaders);
        return reply.raw;
      });
    },
  );

  const actionSchema = <B extends TSchema>(operationId: string, summary: string, description: string, body: B) => ({
    tags,
    operationId,
    summary,
    description: `${description} An order event; rate limited per code (${ACTIONS_PER_CODE_PER_MIN} a minute) and per address.`,
    security: [],
    params: TrackingCodeParams,
    querystring: TrackingLangQuery,
    body,
    response: { 200: PublicTracking, ...errorResponses(404, 409, 422, 429) },
  });

  r.post(
    '/track/:tracking_code/instructions',
    {
      schema: actionSchema(
        'giveTrackingInstructions',
        'Delivery instructions and a safe place, from the customer (before departure)',
        'Allowed while pending, validated, assigned, ready_for_pickup or rescheduled; writes `order.instructions_updated`.',
        InstructionsBody,
      ),
    },
    async (req, reply) => {
      privateHeaders(reply);
      const row = await rowOf(req);
      await limitCode(row.tracking_code);
      return giveInstructions(ctx, row, req.body, langOf(req));
    },
  );

  r.post(
    '/track/:tracking_code/reschedule',
    {
      schema: actionSchema(
        'rescheduleFromTracking',
        'A new delivery day chosen by the customer (after a failure)',
        'Allowed while failed, for one of `actions.reschedule_days`; moves the order to rescheduled (`order.rescheduled`, `by: customer`).',
        RescheduleBody,
      ),
    },
    async (req, reply) => {
      privateHeaders(reply);
      const row = await rowOf(req);
      await limitCode(row.tracking_code);
      return chooseDay(ctx, row, req.body, langOf(req));
    },
  );

  r.post(
    '/track/:tracking_code/feedback',
    {
      schema: actionSchema(
        'rateDelivery',
        "The customer's rating of the delivery, 1–5 with a comment (after delivery, once)",
        "Allowed once delivered; writes `order.rated` and joins the courier's average rating.",
        FeedbackBody,
      ),
    },
    async (req, reply) => {
      privateHeaders(reply);
      const row = await rowOf(req);
      await limitCode(row.tracking_code);
      return rate(ctx, row, req.body, langOf(req));
    },
  );
}

/** Open tracking streams end before the server waits for its connections. */
export function trackingHooks(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('preClose', async () => {
    ctx.instance.peek(TRACKING_HUB)?.close();
  });
}

export { presentRow };
