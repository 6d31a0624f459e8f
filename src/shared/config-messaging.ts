import { ConfigError, int } from './config-values.js';

/** Where customer messages leave: each provider is null unless its variables are set. */
export interface Messaging {
  /** `smtp://user:pass@host:port` or `smtps://…` (nodemailer's URL form). */
  smtp: { url: string; from: string } | null;
  twilio: {
    accountSid: string;
    authToken: string;
    smsFrom: string | null;
    whatsappFrom: string | null;
    /** Base URL of the Messages API (https://api.twilio.com); tests point it at a local server. */
    apiUrl: string;
  } | null;
  /** Meta's WhatsApp Cloud API, preferred over Twilio for WhatsApp when set. */
  meta: {
    token: string;
    phoneNumberId: string;
    /** Base URL with the Graph API version, e.g. https://graph.facebook.com/v21.0. */
    apiUrl: string;
    /** Signs the webhooks Meta sends (X-Hub-Signature-256); null: webhooks refused. */
    appSecret: string | null;
    /** What Meta echoes when the webhook URL is registered (hub.verify_token). */
    verifyToken: string | null;
  } | null;
  /** Messages one process sends at once. */
  concurrency: number;
}

function baseUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = (env[name]?.trim() || fallback).replace(/\/+$/, '');
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {}
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) {
    throw new ConfigError(name, 'must be an absolute http(s) URL');
  }
  return value;
}

export function messaging(env: NodeJS.ProcessEnv): Messaging {
  const v = (name: string): string | null => env[name]?.trim() || null;
  const smtpUrl = v('RUTA_SMTP_URL');
  if (smtpUrl && !/^smtps?:\/\/.+/.test(smtpUrl)) {
    throw new ConfigError('RUTA_SMTP_URL', 'must be smtp://… or smtps://…');
  }
  if (smtpUrl && !v('RUTA_EMAIL_FROM')) throw new ConfigError('RUTA_EMAIL_FROM', 'must be set with RUTA_SMTP_URL');
  const sid = v('RUTA_TWILIO_ACCOUNT_SID');
  if (sid && !v('RUTA_TWILIO_AUTH_TOKEN')) {
    throw new ConfigError('RUTA_TWILIO_AUTH_TOKEN', 'must be set with RUTA_TWILIO_ACCOUNT_SID');
  }
  if (sid && !v('RUTA_TWILIO_SMS_FROM') && !v('RUTA_TWILIO_WHATSAPP_FROM')) {
    throw new ConfigError(
      'RUTA_TWILIO_SMS_FROM',
      '(or RUTA_TWILIO_WHATSAPP_FROM) must be set with RUTA_TWILIO_ACCOUNT_SID: the number Twilio sends from',
    );
  }
  const waToken = v('RUTA_WHATSAPP_TOKEN');
  if (waToken && !v('RUTA_WHATSAPP_PHONE_NUMBER_ID')) {
    throw new ConfigError('RUTA_WHATSAPP_PHONE_NUMBER_ID', 'must be set with RUTA_WHATSAPP_TOKEN');
  }
  // A provider's other variables without the one that turns it on (often a typo in its name) would
  // leave its channel on the `log` provider: customers would get nothing, and nothing would say so.
  const without = (needed: string, present: boolean, others: string[]) => {
    const set = others.find((name) => v(name));
    if (!present && set) {
      throw new ConfigError(needed, `must be set with ${set}: without it, these messages are only logged, never sent`);
    }
  };
  without('RUTA_SMTP_URL', Boolean(smtpUrl), ['RUTA_EMAIL_FROM']);
  without('RUTA_TWILIO_ACCOUNT_SID', Boolean(sid), [
    'RUTA_TWILIO_AUTH_TOKEN',
    'RUTA_TWILIO_SMS_FROM',
    'RUTA_TWILIO_WHATSAPP_FROM',
    'RUTA_TWILIO_API_URL',
  ]);
  without('RUTA_WHATSAPP_TOKEN', Boolean(waToken), [
    'RUTA_WHATSAPP_PHONE_NUMBER_ID',
    'RUTA_WHATSAPP_APP_SECRET',
    'RUTA_WHATSAPP_VERIFY_TOKEN',
    'RUTA_WHATSAPP_API_URL',
  ]);
  return {
    smtp: smtpUrl ? { url: smtpUrl, from: v('RUTA_EMAIL_FROM') as string } : null,
    twilio: sid
      ? {
          accountSid: sid,
          authToken: v('RUTA_TWILIO_AUTH_TOKEN') as string,
          smsFrom: v('RUTA_TWILIO_SMS_FROM'),
          whatsappFrom: v('RUTA_TWILIO_WHATSAPP_FROM'),
          apiUrl: baseUrl(env, 'RUTA_TWILIO_API_URL', 'https://api.twilio.com'),
        }
      : null,
    meta: waToken
      ? {
          token: waToken,
          phoneNumberId: v('RUTA_WHATSAPP_PHONE_NUMBER_ID') as string,
          apiUrl: baseUrl(env, 'RUTA_WHATSAPP_API_URL', 'https://graph.facebook.com/v21.0'),
          appSecret: v('RUTA_WHATSAPP_APP_SECRET'),
          verifyToken: v('RUTA_WHATSAPP_VERIFY_TOKEN'),
        }
      : null,
    concurrency: int(env, 'RUTA_MESSAGE_CONCURRENCY', 16, 1, 1000),
  };
}
