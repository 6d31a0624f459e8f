/**
 * Local provider servers for customer messages: a real SMTP server and HTTP servers answering as
 * Twilio's and Meta's APIs do. Shared by the tests and by `npm run bench -- --only messages`
 * (bench/scenarios/messages.ts): keep this file free of vitest and of the test fixtures, node and
 * smtp-server only, so that the bench can import it as it imports test/s3-server.ts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One email as the SMTP server received it: the envelope and the raw RFC 5322 message. */
export interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server (the smtp-server package) on a free port, keeping what it receives. */
export async function startSmtp(): Promise<{ url: string; mails: Received[]; close(): Promise<void> }> {
  const mails: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise((r) => server.close(() => r())) };
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A local server answering as Twilio's Messages API does (2010-04-01): basic auth with the
 * Account SID and Auth Token (401 and error 20003 otherwise), a form POST answered 201 with the
 * Message resource, errors as `{code, message, more_info, status}`, and the list filtered by To.
 * `fail` decides an answer per number: a status and a Twilio error code.
 */
export async function startTwilio(sid: string, token: string) {
  const created: { sid: string; form: Record<string, string> }[] = [];
  const requests: Record<string, string>[] = [];
  const fail = new Map<string, { status: number; code: number; message: string }>();
  /** Numbers whose POST is accepted (the message exists) but never answered: a sender dies waiting. */
  const hang = new Set<string>();
  let seq = 0;
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    const expected = `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`;
    if (req.headers.authorization !== expected) {
      return send(401, {
        code: 20003,
        message: 'Authenticate',
        more_info: 'https://www.twilio.com/docs/errors/20003',
        status: 401,
      });
    }
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== `/2010-04-01/Accounts/${sid}/Messages.json`) return send(404, { code: 20404, status: 404 });
    if (req.method === 'GET') {
      const to = url.searchParams.get('To');
      const messages = created
        .filter((m) => m.form.To === to)
        .map((m) => ({ sid: m.sid, to: m.form.To, from: m.form.From, body: m.form.Body, status: 'sent' }));
      return send(200, { messages, page: 0, page_size: 50 });
    }
    const form = Object.fromEntries(new URLSearchParams(await body(req)));
    requests.push({ ...form });
    // Twilio's rules for the body: Body, or a Content template (ContentSid, its variables as JSON),
    // which the stored message's body then is (our templates have one variable, the whole text).
    if (form.ContentSid !== undefined) {
      const vars = (() => {
        try {
          return JSON.parse(form.ContentVariables ?? '{}') as Record<string, string>;
        } catch {
          return null;
        }
      })();
      if (!/^HX[0-9a-f]{32}$/.test(form.ContentSid) || vars === null) {
        return send(400, { code: 21656, message: 'The ContentVariables Parameter is invalid.', status: 400 });
      }
      form.Body = vars['1'] ?? '';
    } else if (!form.Body) {
      return send(400, { code: 21602, message: 'Message body is required.', status: 400 });
    }
    const f = fail.get((form.To ?? '').replace(/^whatsapp:/, ''));
    if (f) return send(f.status, { code: f.code, message: f.message, more_info: '', status: f.status });
    seq += 1;
    const m = { sid: `SM${String(seq).padStart(32, '0')}`, form };
    created.push(m);
    if (hang.has(form.To ?? '')) return;
    send(201, { sid: m.sid, status: 'queued', to: form.To, from: form.From, body: form.Body, account_sid: sid });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    created,
    requests,
    fail,
    hang,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** A local server answering as Meta's WhatsApp Cloud API: bearer token, JSON in, `messages[0].id` out. */
export async function startMeta(phoneNumberId: string, accessToken: string) {
  const sent: { to: string; type: string; text?: { body: string }; biz_opaque_callback_data?: string }[] = [];
  let seq = 0;
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.headers.authorization !== `Bearer ${accessToken}`) {
      return send(401, { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } });
    }
    if (req.method !== 'POST' || req.url !== `/v21.0/${phoneNumberId}/messages`) return send(404, {});
    const payload = JSON.parse(await body(req));
    sent.push(payload);
    seq += 1;
    send(200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: payload.to, wa_id: payload.to }],
      messages: [{ id: `wamid.${seq}` }],
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v21.0`,
    sent,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
