import type { Transporter } from 'nodemailer';
import type { Provider, SendResult } from './types.js';
import { failure } from './types.js';

/** Connection-level failures nodemailer reports: the server never answered, or stopped answering. */
const NETWORK = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'ETLS']);

/**
 * Email over SMTP with nodemailer. Each message has a Message-ID derived from its id, so a resend
 * after a crash is the same message to every mail system that de-duplicates by it. RFC 8058:
 * `List-Unsubscribe` carries the https link and `List-Unsubscribe-Post: List-Unsubscribe=One-Click`
 * tells the mailbox provider it may POST to it (Gmail and Yahoo require both of bulk senders).
 */
export function smtpProvider(cfg: { url: string; from: string }, publicHost: string): Provider {
  // nodemailer is loaded with the first email, not at start (a few MB of every process otherwise).
  let transport: Promise<Transporter> | undefined;
  const open = () => {
    transport ??= import('nodemailer').then((m) => m.default.createTransport(cfg.url));
    return transport;
  };
  return {
    name: 'smtp',
    async send(m): Promise<SendResult> {
      try {
        const info = await (await open()).sendMail({
          from: { name: m.senderName, address: cfg.from },
          to: m.to,
          subject: m.subject ?? '',
          text: m.body,
          messageId: `<${m.id}@${publicHost}>`,
          headers: {
            'List-Unsubscribe': `<${m.unsubscribeUrl}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          },
        });
        return { ok: true, providerId: info.messageId };
      } catch (err) {
        const e = err as { code?: string; responseCode?: number; message?: string };
        if (typeof e.responseCode === 'number') {
          // RFC 5321: 4yz is a transient failure (try again), 5yz permanent.
          return failure(e.responseCode < 500, `SMTP ${e.responseCode}: ${e.message ?? ''}`);
        }
        return failure(true, `SMTP ${e.code ?? 'error'}: ${e.message ?? ''}`, NETWORK.has(e.code ?? ''));
      }
    },
    close() {
      void transport?.then((t) => t.close());
    },
  };
}
