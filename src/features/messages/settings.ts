import {
  MESSAGE_CHANNELS,
  MESSAGE_LOCALES,
  MESSAGE_TRIGGERS,
  type MessageChannel,
  type MessageLocale,
  type MessageTrigger,
} from '../../shared/db/tables/messages.js';
import { ApiError } from '../../shared/errors.js';
import { defaultTemplate, type Template, unknownVariables } from './templates.js';

export type Channels = Record<MessageChannel, boolean>;

/** Template overrides: trigger → channel → locale → template; what is absent is the shipped text. */
export type TemplateOverrides = Partial<
  Record<MessageTrigger, Partial<Record<MessageChannel, Partial<Record<MessageLocale, Template>>>>>
>;

export interface MessageSettings {
  triggers: Record<MessageTrigger, Channels>;
  /** Local times (`HH:mm`) in the depot's zone; null: no quiet hours. */
  quiet_hours: { start: string; end: string } | null;
  /** Shown as the sender: the carrier's name in the text, the email's display name. */
  sender_name: string | null;
  /** The locale of customers whose order does not say. */
  locale: MessageLocale;
  /** ISO 3166 country of phone numbers written without a country code (e.g. PE). */
  default_country: string | null;
  templates: TemplateOverrides;
  /** Meta Cloud API: the approved template name per trigger (WhatsApp outside the 24 h window). */
  whatsapp_templates: Partial<Record<MessageTrigger, string>>;
}

const all = (on: boolean): Channels => ({ sms: on, whatsapp: on, email: on });

/**
 * What an account gets until it or the carrier says otherwise: WhatsApp and email for the moments
 * a customer acts on (leaving, delivered, failed), WhatsApp for the next stop, email for the
 * confirmation (with the tracking link), nothing for rescheduling (the merchant usually tells
 * them), SMS off (it costs per segment). docs/notifications.md says the same.
 */
export const DEFAULT_SETTINGS: MessageSettings = {
  triggers: {
    order_confirmed: { sms: false, whatsapp: false, email: true },
    out_for_delivery: { sms: false, whatsapp: true, email: true },
    next_stop: { sms: false, whatsapp: true, email: false },
    delivered: { sms: false, whatsapp: true, email: true },
    failed: { sms: false, whatsapp: true, email: true },
    rescheduled: all(false),
  },
  quiet_hours: { start: '21:00', end: '08:00' },
  sender_name: null,
  locale: 'es',
  default_country: null,
  templates: {},
  whatsapp_templates: {},
};

/** Whether some moment sends customer messages on `channel`: a customer without its address misses them. */
export function sendsOn(s: MessageSettings, channel: MessageChannel): boolean {
  return MESSAGE_TRIGGERS.some((t) => s.triggers[t][channel]);
}

/** Stored settings over the defaults: a stored document from an older version still reads whole. */
export function withDefaults(stored: Partial<MessageSettings> | undefined): MessageSettings {
  const s = stored ?? {};
  const triggers = { ...DEFAULT_SETTINGS.triggers };
  for (const t of MESSAGE_TRIGGERS) triggers[t] = { ...triggers[t], ...(s.triggers?.[t] ?? {}) };
  return {
    ...DEFAULT_SETTINGS,
    ...s,
    triggers,
    quiet_hours: s.quiet_hours === undefined ? DEFAULT_SETTINGS.quiet_hours : s.quiet_hours,
    templates: s.templates ?? {},
    whatsapp_templates: s.whatsapp_templates ?? {},
  };
}

/** The template a message uses: the account's override, else the shipped one. */
export function templateFor(
  s: MessageSettings,
  trigger: MessageTrigger,
  channel: MessageChannel,
  locale: MessageLocale,
): Template {
  return s.templates[trigger]?.[channel]?.[locale] ?? defaultTemplate(trigger, channel, locale);
}

/** The rules a JSON schema cannot say: known variables only, an email has a subject, times make sense. */
export function checkSettings(s: MessageSettings): void {
  if (s.quiet_hours && s.quiet_hours.start === s.quiet_hours.end) {
    throw new ApiError('parameter_invalid', 'Invalid quiet_hours: start and end must differ.', 'quiet_hours.end');
  }
  for (const t of MESSAGE_TRIGGERS) {
    for (const c of MESSAGE_CHANNELS) {
      for (const l of MESSAGE_LOCALES) {
        const tpl = s.templates[t]?.[c]?.[l];
        if (!tpl) continue;
        const param = `templates.${t}.${c}.${l}`;
        const bad = unknownVariables(`${tpl.subject ?? ''} ${tpl.body}`);
        if (bad.length > 0) {
          throw new ApiError('parameter_invalid', `Invalid ${param}: unknown variable {{${bad[0]}}}.`, `${param}.body`);
        }
        if (tpl.body.trim() === '')
          throw new ApiError('parameter_invalid', `Invalid ${param}: empty body.`, `${param}.body`);
        if (c === 'email' && !tpl.subject?.trim()) {
          throw new ApiError('parameter_invalid', `Invalid ${param}: an email needs a subject.`, `${param}.subject`);
        }
      }
    }
  }
}

/** Whether local time `hhmm` falls in the quiet hours (which may wrap midnight: 21:00–08:00). */
export function inQuietHours(q: { start: string; end: string } | null, hhmm: string): boolean {
  if (!q) return false;
  return q.start < q.end ? hhmm >= q.start && hhmm < q.end : hhmm >= q.start || hhmm < q.end;
}

/** Triggers a customer waits for at the door: sent whatever the hour (DESIGN §14). */
export const QUIET_HOURS_EXEMPT: readonly MessageTrigger[] = ['next_stop', 'out_for_delivery'];
