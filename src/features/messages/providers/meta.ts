import type { Messaging } from '../../../shared/config-messaging.js';
import { failure, type Provider, retryableStatus, type SendResult } from './types.js';

type MetaConfig = NonNullable<Messaging['meta']>;

const TIMEOUT_MS = 10_000;

/** Cloud API error codes that mean "later": rate and throughput limits, and Meta being unavailable. */
const RETRY_CODES = new Set([4, 80007, 130429, 131016, 131048, 131056]);

/**
 * WhatsApp through Meta's Cloud API: POST {version}/{phone-number-id}/messages with a bearer
 * token, JSON `{messaging_product: "whatsapp", to, type}`; answered with `messages[0].id` (a
 * `wamid`). A business may only start a conversation with an approved template: when the account
 * names one for the trigger, the rendered text is its one body parameter; otherwise free text
 * (valid inside the customer's 24 h window). Errors are `{error: {code, message, …}}`.
 */
export function metaProvider(cfg: MetaConfig): Provider {
  const url = `${cfg.apiUrl}/${encodeURIComponent(cfg.phoneNumberId)}/messages`;
  return {
    name: 'meta',
    async send(m, signal): Promise<SendResult> {
      // A Twilio Content SID (HX…) names nothing at Meta: without a Meta name the text goes free-form.
      const template = m.whatsappTemplate?.startsWith('HX') ? null : m.whatsappTemplate;
      const payload = template
        ? {
            type: 'template',
            template: {
              name: template,
              language: { code: m.locale },
              components: [{ type: 'body', parameters: [{ type: 'text', text: m.body }] }],
            },
          }
        : { type: 'text', text: { preview_url: true, body: m.body } };
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${cfg.token}`, 'content-type': 'application/json' },
          // The Cloud API takes the number without its plus sign.
          body: JSON.stringify({
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to: m.to.replace(/^\+/, ''),
            // Echoed in every status webhook of this message.
            biz_opaque_callback_data: m.id,
            ...payload,
          }),
          signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
        });
      } catch (err) {
        return failure(true, `Meta unreachable: ${(err as Error).message}`, true);
      }
      const body = (await res.json().catch(() => ({}))) as {
        messages?: { id: string }[];
        error?: { code?: number; message?: string };
      };
      const id = body.messages?.[0]?.id;
      if (res.ok && id) return { ok: true, providerId: id };
      const code = body.error?.code;
      const retry = retryableStatus(res.status) || (code !== undefined && RETRY_CODES.has(code));
      return failure(retry, `Meta ${res.status} ${code ?? ''}: ${body.error?.message ?? ''}`);
    },
  };
}
