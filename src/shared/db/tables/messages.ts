import type { Mode } from './columns.js';

/** DESIGN §14: what a customer message says, pure data (the console imports it). */
export const MESSAGE_TRIGGERS = [
  'order_confirmed',
  'out_for_delivery',
  'next_stop',
  'delivered',
  'failed',
  'rescheduled',
] as const;
export type MessageTrigger = (typeof MESSAGE_TRIGGERS)[number];

export const MESSAGE_CHANNELS = ['sms', 'whatsapp', 'email'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

export const MESSAGE_LOCALES = ['es', 'en', 'pt'] as const;
export type MessageLocale = (typeof MESSAGE_LOCALES)[number];

/**
 * `queued`: waiting for its job (also while deferred by quiet hours, `reason` says so); `sent`:
 * the provider accepted it; `delivered`/`failed`: the provider's last word (or ours, after the
 * retries); `suppressed`: never sent, `reason` says why.
 */
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'failed', 'suppressed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const MESSAGE_PROVIDERS = ['log', 'smtp', 'twilio', 'meta'] as const;
export type MessageProvider = (typeof MESSAGE_PROVIDERS)[number];

/** Created by 015_messages. */
export interface MessagesTable {
  id: string;
  account_id: string;
  mode: Mode;
  order_id: string;
  trigger: MessageTrigger;
  channel: MessageChannel;
  to_address: string | null;
  locale: MessageLocale;
  subject: string | null;
  /** 034: null until the message is rendered, by its send job (or at the move in test mode). */
  body: string | null;
  /** 020: the body with the delivery PIN blanked (what the carrier reads); null when it holds none. */
  body_masked: string | null;
  status: MessageStatus;
  reason: string | null;
  provider: MessageProvider;
  provider_message_id: string | null;
  /** 034: null until rendered, as `body`. */
  segments: number | null;
  attempts: number;
  send_started_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
  delivered_at: number | null;
  /** 034: JSON, what the move knew that the order may not keep until the send renders the message (content.ts MoveFacts). */
  facts: string | null;
}

/** Created by 015_messages. */
export interface MessageSettingsTable {
  account_id: string;
  /** JSON MessageSettings (features/messages/settings.ts). */
  settings: string;
  updated_at: number;
}

/** Created by 015_messages. */
export interface MessageOptOutsTable {
  account_id: string;
  address: string;
  source: string;
  created_at: number;
}
