import { isSupportedCountry } from 'libphonenumber-js';
import type { AppContext } from '../../shared/context.js';
import {
  MESSAGE_CHANNELS,
  MESSAGE_LOCALES,
  MESSAGE_TRIGGERS,
  type MessageChannel,
  type MessageLocale,
  type MessageTrigger,
} from '../../shared/db/tables/messages.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { accountById } from '../accounts/service.js';
import { reasonWords, renderPending, withContent } from './content.js';
import { presentMessage } from './events.js';
import { providerFor } from './queue.js';
import * as repo from './repo.js';
import type { MessageQuery, NotificationSettingsUpdate, PreviewBody } from './schemas.js';
import { countSegments } from './segments.js';
import { checkSettings, type MessageSettings, templateFor, withDefaults } from './settings.js';
import { render, TEMPLATE_VARIABLES, type Template } from './templates.js';

/** Whose settings: an account's, or the carrier's defaults (`null`). */
export type SettingsOwner = string | null;

async function load(ctx: AppContext, owner: SettingsOwner) {
  const stored = await repo.settingsOf(ctx.db, owner === null ? [repo.CARRIER] : [owner, repo.CARRIER]);
  const carrier = withDefaults(stored.get(repo.CARRIER));
  if (owner === null) return { settings: carrier, inherited: false };
  return stored.has(owner)
    ? { settings: withDefaults(stored.get(owner)), inherited: false }
    : { settings: carrier, inherited: true };
}

function present(owner: SettingsOwner, s: MessageSettings, inherited: boolean) {
  const templates = Object.fromEntries(
    MESSAGE_TRIGGERS.map((t) => [
      t,
      Object.fromEntries(
        MESSAGE_CHANNELS.map((c) => [
          c,
          Object.fromEntries(
            MESSAGE_LOCALES.map((l) => [l, { ...templateFor(s, t, c, l), custom: !!s.templates[t]?.[c]?.[l] }]),
          ),
        ]),
      ),
    ]),
  );
  return {
    object: 'notification_settings' as const,
    account: owner,
    inherited,
    triggers: s.triggers,
    quiet_hours: s.quiet_hours,
    sender_name: s.sender_name,
    locale: s.locale,
    default_country: s.default_country,
    templates,
    whatsapp_templates: s.whatsapp_templates as Record<string, string>,
    variables: [...TEMPLATE_VARIABLES],
  };
}

/** Which provider each channel's live messages go through (`log`: none configured): names, never secrets. */
function providers(ctx: AppContext) {
  return {
    sms: providerFor(ctx, 'sms'),
    whatsapp: providerFor(ctx, 'whatsapp'),
    email: providerFor(ctx, 'email'),
  };
}

export async function getSettings(ctx: AppContext, owner: SettingsOwner) {
  const { settings, inherited } = await load(ctx, owner);
  return { ...present(owner, settings, inherited), providers: providers(ctx) };
}

/** Merges the update into what is in force (an account's first update starts from the carrier's defaults). */
export async function updateSettings(ctx: AppContext, owner: SettingsOwner, u: NotificationSettingsUpdate) {
  const { settings: s } = await load(ctx, owner);
  const next: MessageSettings = structuredClone(s);
  for (const [t, channels] of Object.entries(u.triggers ?? {})) {
    const key = t as keyof MessageSettings['triggers'];
    next.triggers[key] = { ...next.triggers[key], ...channels };
  }
  if (u.quiet_hours !== undefined) next.quiet_hours = u.quiet_hours;
  if (u.sender_name !== undefined) next.sender_name = u.sender_name;
  if (u.locale !== undefined) next.locale = u.locale as MessageLocale;
  if (u.default_country !== undefined) {
    // The pattern lets through two letters no country has ("XX"): numbers would then silently never read.
    if (u.default_country !== null && !isSupportedCountry(u.default_country)) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid default_country: '${u.default_country}' is not a country with phone numbers (ISO 3166-1 alpha-2, e.g. PE).`,
        'default_country',
      );
    }
    next.default_country = u.default_country;
  }
  for (const [t, channels] of Object.entries(u.templates ?? {})) {
    for (const [c, locales] of Object.entries(channels ?? {})) {
      for (const [l, tpl] of Object.entries(locales ?? {})) {
        const tk = t as keyof typeof next.templates;
        const byTrigger = next.templates[tk] ?? {};
        next.templates[tk] = byTrigger;
        const ck = c as keyof typeof byTrigger;
        const byChannel = byTrigger[ck] ?? {};
        byTrigger[ck] = byChannel;
        if (tpl === null) delete byChannel[l as MessageLocale];
        else byChannel[l as MessageLocale] = tpl as Template;
      }
    }
  }
  for (const [t, name] of Object.entries(u.whatsapp_templates ?? {})) {
    const key = t as keyof MessageSettings['whatsapp_templates'];
    if (name === null) delete next.whatsapp_templates[key];
    else if (name !== undefined) next.whatsapp_templates[key] = name;
  }
  checkSettings(next);
  await repo.putSettings(ctx.db, owner ?? repo.CARRIER, next, ctx.clock());
  return { ...present(owner, next, false), providers: providers(ctx) };
}

/** Renders a template (the given one, or the one in force) with sample values, and counts its SMS segments. */
export async function preview(ctx: AppContext, owner: SettingsOwner, b: PreviewBody) {
  const { settings } = await load(ctx, owner);
  const locale = (b.locale ?? settings.locale) as MessageLocale;
  const trigger = b.trigger as MessageTrigger;
  const channel = b.channel as MessageChannel;
  const tpl = b.template ?? templateFor(settings, trigger, channel, locale);
  checkSettings({ ...settings, templates: { [trigger]: { [channel]: { [locale]: tpl } } } });
  const account = owner === null ? undefined : await accountById(ctx, owner);
  const carrier = withDefaults((await repo.settingsOf(ctx.db, [repo.CARRIER])).get(repo.CARRIER));
  const values = {
    customer_first_name: 'Ana',
    merchant_name: account?.brand_name ?? account?.name ?? 'Tienda Ejemplo',
    carrier_name: settings.sender_name ?? carrier.sender_name ?? 'Ruta',
    tracking_url: `${ctx.config.publicUrl}/track/RT4K7Q2M9X`,
    eta_start: '10:00',
    eta_end: '11:00',
    pin: '4821',
    courier_first_name: 'Luis',
    receiver_name: 'Carmen',
    failure_reason: reasonWords('customer_absent', locale, channel),
  };
  const body = render(tpl.body, values, locale);
  const sms = b.channel === 'email' ? null : countSegments(body);
  return {
    object: 'notification_preview' as const,
    subject: b.channel === 'email' ? render(tpl.subject ?? '', values, locale) : null,
    body,
    encoding: sms?.encoding ?? null,
    length: sms?.length ?? body.length,
    segments: sms?.segments ?? 0,
  };
}

export async function listMessages(ctx: AppContext, who: repo.Reader, q: MessageQuery) {
  const limit = q.limit ?? 20;
  if (q.starting_after !== undefined && !(await repo.findMessage(ctx.db, who, q.starting_after))) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid starting_after: no such message '${q.starting_after}'.`,
      'starting_after',
    );
  }
  const rows = await repo.listMessages(ctx.db, who, {
    order: q.order,
    channel: q.channel as string | undefined,
    status: q.status as string | undefined,
    trigger: q.trigger as string | undefined,
    account: q.account,
    afterId: q.starting_after,
    limit,
  });
  const page = rows.slice(0, limit);
  // A queued message is rendered by its send; until then it reads as that send would write it.
  const pending = await renderPending(ctx, ctx.db, page);
  return {
    object: 'list' as const,
    has_more: rows.length > limit,
    data: page.map((m) => presentMessage(withContent(m, pending.get(m.id)), who.accountId !== null)),
  };
}

export async function getMessage(ctx: AppContext, who: repo.Reader, id: string) {
  const m = await repo.findMessage(ctx.db, who, id);
  if (!m) throw notFound('message', id);
  const pending = await renderPending(ctx, ctx.db, [m]);
  return presentMessage(withContent(m, pending.get(m.id)), who.accountId !== null);
}
