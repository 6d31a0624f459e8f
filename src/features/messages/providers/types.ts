import type { MessageChannel, MessageProvider } from '../../../shared/db/tables/messages.js';

/** A message as a provider sends it. */
export interface Outbound {
  id: string;
  channel: MessageChannel;
  to: string;
  subject: string | null;
  body: string;
  locale: string;
  /** The sender's display name (email). */
  senderName: string;
  /** RFC 8058 one-click link (email). */
  unsubscribeUrl: string;
  /** Where Twilio posts status changes. */
  statusCallback: string;
  /** Meta: an approved template to send instead of free text (outside the 24 h window). */
  whatsappTemplate: string | null;
  /** When the first send was tried: reconciliation looks from there on. */
  createdAt: number;
}

/**
 * The provider's answer. `retry` follows each provider's documented meaning: HTTP 429 and 5xx and
 * network failures may succeed later; other 4xx will not (a bad number, a blocked recipient).
 * SMTP is the other way round: 4yz replies are transient, 5yz permanent (RFC 5321 §4.2.1).
 * `ambiguous`: no answer came (timeout, reset), so the provider may have taken it.
 */
export type SendResult =
  | { ok: true; providerId: string }
  | { ok: false; retry: boolean; ambiguous: boolean; error: string };

export interface Provider {
  readonly name: MessageProvider;
  send(m: Outbound, signal: AbortSignal): Promise<SendResult>;
  /**
   * After a worker died mid-send: the provider's id of this message if the provider has it (then
   * it is not sent again), null if it surely has not, undefined if the provider cannot tell.
   */
  find?(m: Outbound, signal: AbortSignal): Promise<string | null | undefined>;
  close?(): void;
}

export const failure = (retry: boolean, error: string, ambiguous = false): SendResult => ({
  ok: false,
  retry,
  ambiguous,
  error: error.slice(0, 500),
});

/** HTTP: 429 and 5xx may pass later; the rest of 4xx never will. */
export const retryableStatus = (status: number): boolean => status === 429 || status >= 500;
