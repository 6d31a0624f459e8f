import { type Static, type TSchema, Type } from 'typebox';
import {
  MESSAGE_CHANNELS,
  MESSAGE_LOCALES,
  MESSAGE_PROVIDERS,
  MESSAGE_STATUSES,
  MESSAGE_TRIGGERS,
} from '../../shared/db/tables/messages.js';
import { AccountFilter } from '../../shared/params.js';

const Enum = <const T extends readonly string[]>(values: T, o: Record<string, unknown> = {}) =>
  Type.Enum([...values] as [...T], o);
const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:mm, local time' });

export const Trigger = Enum(MESSAGE_TRIGGERS);
export const Channel = Enum(MESSAGE_CHANNELS);
export const Locale = Enum(MESSAGE_LOCALES);

/** One object per key of `keys`, each property optional: a TypeBox object from a vocabulary. */
function byKey<T extends TSchema>(keys: readonly string[], value: T, o: Record<string, unknown> = {}) {
  return Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Optional(value)])), {
    additionalProperties: false,
    ...o,
  });
}

export const Template = Type.Object(
  {
    subject: Type.Optional(Type.String({ maxLength: 200, description: 'Email only' })),
    body: Type.String({ minLength: 1, maxLength: 4000 }),
  },
  { additionalProperties: false },
);

const Channels = Type.Object(
  { sms: Type.Boolean(), whatsapp: Type.Boolean(), email: Type.Boolean() },
  { additionalProperties: false },
);
const QuietHours = Nullable(Type.Object({ start: HHMM, end: HHMM }, { additionalProperties: false }));

const ShownTemplate = Type.Object({
  subject: Type.Optional(Type.String()),
  body: Type.String(),
  custom: Type.Boolean({ description: 'The account changed it; false: the shipped text' }),
});

export const NotificationSettings = Type.Object(
  {
    object: Type.Literal('notification_settings'),
    account: Nullable(Type.String({ description: "The account, or null for the carrier's defaults" })),
    inherited: Type.Boolean({ description: "The account has no settings of its own and uses the carrier's" }),
    triggers: Type.Object(Object.fromEntries(MESSAGE_TRIGGERS.map((t) => [t, Channels]))),
    quiet_hours: QuietHours,
    sender_name: Nullable(Type.String()),
    locale: Locale,
    default_country: Nullable(Type.String()),
    templates: Type.Object(
      Object.fromEntries(
        MESSAGE_TRIGGERS.map((t) => [
          t,
          Type.Object(
            Object.fromEntries(
              MESSAGE_CHANNELS.map((c) => [
                c,
                Type.Object(Object.fromEntries(MESSAGE_LOCALES.map((l) => [l, ShownTemplate]))),
              ]),
            ),
          ),
        ]),
      ),
      { description: 'Every template in force: trigger → channel → locale' },
    ),
    whatsapp_templates: Type.Record(Type.String(), Type.String()),
    variables: Type.Array(Type.String(), { description: 'What a template may use, as {{name}}' }),
    providers: Type.Object(
      { sms: Enum(MESSAGE_PROVIDERS), whatsapp: Enum(MESSAGE_PROVIDERS), email: Enum(MESSAGE_PROVIDERS) },
      {
        description:
          "Where live messages of each channel leave, from the server's environment: `log` means no provider is configured (nothing leaves the machine); test mode always uses `log`. Names only, never a credential.",
      },
    ),
  },
  { $id: 'NotificationSettings' },
);

export const NotificationSettingsUpdate = Type.Object(
  {
    triggers: Type.Optional(byKey(MESSAGE_TRIGGERS, byKey(MESSAGE_CHANNELS, Type.Boolean()))),
    quiet_hours: Type.Optional(QuietHours),
    sender_name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    locale: Type.Optional(Locale),
    default_country: Type.Optional(
      Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2, e.g. PE' })),
    ),
    templates: Type.Optional(
      byKey(MESSAGE_TRIGGERS, byKey(MESSAGE_CHANNELS, byKey(MESSAGE_LOCALES, Nullable(Template))), {
        description: 'Overrides; null puts the shipped text back',
      }),
    ),
    whatsapp_templates: Type.Optional(
      byKey(MESSAGE_TRIGGERS, Nullable(Type.String({ pattern: '^(?:HX[0-9a-f]{32}|[a-z0-9_]{1,512})$' })), {
        description:
          "The approved WhatsApp template each trigger's message goes out as, with one body variable that carries the rendered text: Meta's template name (lower case, digits, `_`) when Meta carries WhatsApp, or Twilio's Content SID (`HX` and 32 hex digits) when Twilio does. Null removes it (the text then goes free-form, which WhatsApp delivers only within 24 hours of the customer's last message).",
      }),
    ),
  },
  { additionalProperties: false, $id: 'NotificationSettingsUpdate' },
);
export type NotificationSettingsUpdate = Static<typeof NotificationSettingsUpdate>;

export const PreviewBody = Type.Object(
  {
    trigger: Trigger,
    channel: Channel,
    locale: Type.Optional(Locale),
    template: Type.Optional(Template),
  },
  { additionalProperties: false, $id: 'NotificationPreviewParams' },
);
export type PreviewBody = Static<typeof PreviewBody>;

export const Preview = Type.Object(
  {
    object: Type.Literal('notification_preview'),
    subject: Nullable(Type.String()),
    body: Type.String(),
    encoding: Nullable(Enum(['GSM-7', 'UCS-2'] as const, { description: 'SMS only' })),
    length: Type.Integer(),
    segments: Type.Integer({ description: 'SMS parts billed (0 for email)' }),
  },
  { $id: 'NotificationPreview' },
);

export const Message = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('message'),
    order: Type.String(),
    trigger: Trigger,
    channel: Channel,
    to: Nullable(
      Type.String({
        description:
          'Masked except for the merchant that owns it. Read from the order when the message is sent; while it is queued, the address its send would use (null: none valid, it will be suppressed)',
      }),
    ),
    locale: Locale,
    subject: Nullable(Type.String()),
    body: Type.String({
      description:
        'The text as sent. A queued message is rendered when its send starts; until then this is the text it would go with now (the templates and the order as they are)',
    }),
    status: Enum(MESSAGE_STATUSES),
    reason: Nullable(
      Type.String({
        description:
          'Why suppressed, deferred or failed: opted_out, no_valid_phone, no_email, test_mode, quiet_hours, retrying, provider_rejected, provider_unavailable, interrupted',
      }),
    ),
    provider: Enum(MESSAGE_PROVIDERS),
    provider_message_id: Nullable(Type.String()),
    segments: Type.Integer({ description: 'SMS parts billed (0 for email), counted on the same text as `body`' }),
    attempts: Type.Integer(),
    livemode: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    sent_at: Nullable(Type.String({ format: 'date-time' })),
    delivered_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'Message' },
);

export const MessageList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Message), has_more: Type.Boolean() },
  { $id: 'MessageList' },
);

export const MessageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 100, description: 'A message id: the page after it' })),
    order: Type.Optional(Type.String({ maxLength: 100, description: 'Order id' })),
    channel: Type.Optional(Channel),
    status: Type.Optional(Enum(MESSAGE_STATUSES)),
    trigger: Type.Optional(Trigger),
    account: Type.Optional(AccountFilter("The carrier: one merchant account's messages")),
  },
  { additionalProperties: false },
);
export type MessageQuery = Static<typeof MessageQuery>;
