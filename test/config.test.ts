import { spawnSync } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/shared/config.js';
import { DEFAULT_PRICING } from '../src/shared/config-pricing.js';
import { ConfigError } from '../src/shared/config-values.js';
import { RUTA_CLI } from './cli-run.js';

/** The error loadConfig throws for `env`, or a failure if it throws none. */
function errorFor(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('has the documented defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: 'sqlite:./data/ruta.db',
      publicUrl: 'http://localhost:3000',
      defaultCurrency: 'USD',
      logLevel: 'info',
      trustProxy: false,
      rateLimitPerMin: 6000,
      publicRateLimitPerMin: 60,
      webhookAllowInsecure: false,
      webhookTimeoutMs: 5000,
      webhookRetrySchedule: [30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800],
      webhookConcurrency: 64,
      courierSpeedKmh: 25,
      serviceMinutesPerStop: 5,
      fileUrlTtlSeconds: 3600,
      defaultPricing: DEFAULT_PRICING,
    });
    expect(c.filesUrl).toMatch(/^file:\/.*data[/\\]files$/);
  });

  it('reads the planning settings: default time zone and OSRM server', () => {
    expect(loadConfig({}).defaultTimezone).toBe('UTC');
    expect(loadConfig({}).osrmUrl).toBeNull();
    const c = loadConfig({ RUTA_DEFAULT_TIMEZONE: 'America/Lima', RUTA_OSRM_URL: 'http://osrm.local:5000/' });
    expect(c.defaultTimezone).toBe('America/Lima');
    expect(c.osrmUrl).toBe('http://osrm.local:5000');
    expect(errorFor({ RUTA_DEFAULT_TIMEZONE: 'Mars/Olympus' }).message).toMatch(/^RUTA_DEFAULT_TIMEZONE /);
    expect(errorFor({ RUTA_OSRM_URL: 'ftp://x' }).message).toMatch(/^RUTA_OSRM_URL /);
  });

  it('reads well-formed values', () => {
    const c = loadConfig({
      PORT: '0',
      DATABASE_URL: 'postgresql://u:p@db:5432/ruta',
      RUTA_PUBLIC_URL: 'https://api.example.com/',
      RUTA_DEFAULT_CURRENCY: 'pen',
      RUTA_LOG_LEVEL: 'WARN',
      RUTA_TRUST_PROXY: '10.0.0.0/8,127.0.0.1',
      RUTA_RATE_LIMIT_PER_MIN: '0',
      RUTA_WEBHOOK_ALLOW_INSECURE: '1',
      RUTA_WEBHOOK_RETRY_SCHEDULE: '0, 1,2.5',
      RUTA_COURIER_SPEED_KMH: '12.5',
      RUTA_DEFAULT_PRICING: '{"base_fee":700,"included_kg":2.5,"cod_fee_rate":0}',
    });
    expect(c).toMatchObject({
      port: 0,
      databaseUrl: 'postgresql://u:p@db:5432/ruta',
      publicUrl: 'https://api.example.com',
      defaultCurrency: 'PEN',
      logLevel: 'warn',
      trustProxy: '10.0.0.0/8,127.0.0.1',
      rateLimitPerMin: 0,
      webhookAllowInsecure: true,
      webhookRetrySchedule: [0, 1, 2.5],
      courierSpeedKmh: 12.5,
      defaultPricing: { ...DEFAULT_PRICING, base_fee: 700, included_kg: 2.5, cod_fee_rate: 0 },
    });
    expect(loadConfig({ RUTA_DEFAULT_PRICING: '{"cod_fee_rate":1}' }).defaultPricing.cod_fee_rate).toBe(1);
    expect(loadConfig({ RUTA_DEFAULT_PRICING: ' ' }).defaultPricing).toEqual(DEFAULT_PRICING);
    for (const off of ['0', 'false', '']) {
      expect(loadConfig({ RUTA_WEBHOOK_ALLOW_INSECURE: off }).webhookAllowInsecure).toBe(false);
    }
    const proxy = (v: string) => loadConfig({ RUTA_TRUST_PROXY: v }).trustProxy;
    expect([proxy('TRUE'), proxy(' false '), proxy('2')]).toEqual([true, false, 2]);
    expect(proxy('loopback, ::1, 10.0.0.0/255.0.0.0, fd00::/8')).toBe('loopback,::1,10.0.0.0/255.0.0.0,fd00::/8');
  });

  it('refuses a bad RUTA_DEFAULT_PRICING with an error naming the variable and the key', () => {
    const cases: [raw: string, mentions: string][] = [
      ['{base_fee:1}', 'JSON object'],
      ['{"base_fee":1', 'JSON object'],
      ['[]', 'JSON object'],
      ['null', 'JSON object'],
      ['700', 'JSON object'],
      ['"x"', 'JSON object'],
      ['{"base_fees":700}', 'unknown key "base_fees"'],
      ['{"__proto__":{"x":1}}', 'unknown key "__proto__"'],
      ['{"base_fee":-1}', 'RUTA_DEFAULT_PRICING.base_fee must be a number >= 0'],
      ['{"per_km":"50"}', 'RUTA_DEFAULT_PRICING.per_km must be a number'],
      ['{"per_kg":null}', 'RUTA_DEFAULT_PRICING.per_kg must be a number'],
      ['{"included_kg":-0.5}', 'RUTA_DEFAULT_PRICING.included_kg'],
      ['{"minimum":1e400}', 'RUTA_DEFAULT_PRICING.minimum'],
      ['{"base_fee":5.5}', 'RUTA_DEFAULT_PRICING.base_fee is money in minor units'],
      ['{"urgent_fee":0.1}', 'RUTA_DEFAULT_PRICING.urgent_fee is money'],
      ['{"minimum":1e20}', 'RUTA_DEFAULT_PRICING.minimum is money'],
      ['{"cod_fee_rate":1.01}', 'RUTA_DEFAULT_PRICING.cod_fee_rate is a fraction'],
      ['{"cod_fee_rate":-0.01}', 'RUTA_DEFAULT_PRICING.cod_fee_rate must be a number >= 0'],
      ['{"cod_fee_rate":true}', 'RUTA_DEFAULT_PRICING.cod_fee_rate'],
    ];
    for (const [raw, mentions] of cases) {
      const err = errorFor({ RUTA_DEFAULT_PRICING: raw });
      expect(err.message, raw).toMatch(/^RUTA_DEFAULT_PRICING[ .]/);
      expect(err.message, raw).toContain(mentions);
      expect(err.variable, raw).toMatch(/^RUTA_DEFAULT_PRICING/);
    }
  });

  it('names the variable in every error', () => {
    const cases: [name: string, value: string][] = [
      ['PORT', 'abc'],
      ['PORT', '-1'],
      ['PORT', '65536'],
      ['PORT', '80.5'],
      ['PORT', ' '],
      ['DATABASE_URL', 'mysql://x'],
      ['DATABASE_URL', './ruta.db'],
      ['DATABASE_URL', 'sqlite:'],
      ['RUTA_PUBLIC_URL', 'api.example.com'],
      ['RUTA_PUBLIC_URL', 'ftp://example.com'],
      ['RUTA_PUBLIC_URL', 'https://example.com/?x=1'],
      ['RUTA_DEFAULT_CURRENCY', 'dollars'],
      ['RUTA_DEFAULT_CURRENCY', 'U$D'],
      ['RUTA_DEFAULT_CURRENCY', 'ZZZ'],
      ['RUTA_LOG_LEVEL', 'verbose'],
      ['RUTA_RATE_LIMIT_PER_MIN', '-5'],
      ['RUTA_RATE_LIMIT_PER_MIN', 'lots'],
      ['RUTA_PUBLIC_RATE_LIMIT_PER_MIN', '1.5'],
      ['RUTA_WEBHOOK_ALLOW_INSECURE', 'yes please'],
      ['RUTA_WEBHOOK_TIMEOUT_MS', '0'],
      ['RUTA_WEBHOOK_TIMEOUT_MS', '5s'],
      ['RUTA_WEBHOOK_RETRY_SCHEDULE', '30,,60'],
      ['RUTA_WEBHOOK_RETRY_SCHEDULE', '30,-1'],
      ['RUTA_WEBHOOK_RETRY_SCHEDULE', '30s,60s'],
      ['RUTA_WEBHOOK_CONCURRENCY', '0'],
      ['RUTA_COURIER_SPEED_KMH', '0'],
      ['RUTA_COURIER_SPEED_KMH', 'fast'],
      ['RUTA_SERVICE_MINUTES_PER_STOP', '-1'],
      ['RUTA_FILE_URL_TTL_SECONDS', '0'],
      ['RUTA_TRUST_PROXY', 'yes'],
      ['RUTA_TRUST_PROXY', '10.0.0.0/33'],
      ['RUTA_TRUST_PROXY', '127.0.0.1,nginx'],
    ];
    for (const [name, value] of cases) {
      const err = errorFor({ [name]: value });
      expect(err.variable, `${name}=${value}`).toBe(name);
      expect(err.message.startsWith(`${name} `), err.message).toBe(true);
    }
  });

  it('refuses a message provider set up in part, whose channel would be only logged', () => {
    const cases: [env: Record<string, string>, variable: string][] = [
      [{ RUTA_EMAIL_FROM: 'avisos@example.com' }, 'RUTA_SMTP_URL'],
      // RUTA_TWILIO_ACOUNT_SID, a typo: Twilio's other variables are set without the one that turns it on.
      [
        { RUTA_TWILIO_ACOUNT_SID: 'AC1', RUTA_TWILIO_AUTH_TOKEN: 't', RUTA_TWILIO_SMS_FROM: '+1555' },
        'RUTA_TWILIO_ACCOUNT_SID',
      ],
      [{ RUTA_TWILIO_ACCOUNT_SID: 'AC1', RUTA_TWILIO_AUTH_TOKEN: 't' }, 'RUTA_TWILIO_SMS_FROM'],
      [{ RUTA_WHATSAPP_PHONE_NUMBER_ID: '1', RUTA_WHATSAPP_APP_SECRET: 's' }, 'RUTA_WHATSAPP_TOKEN'],
    ];
    for (const [env, variable] of cases) {
      const err = errorFor(env);
      expect(err.variable, JSON.stringify(env)).toBe(variable);
      expect(err.message, JSON.stringify(env)).toMatch(/must be set with RUTA_/);
    }
    const whatsappOnly = loadConfig({
      RUTA_TWILIO_ACCOUNT_SID: 'AC1',
      RUTA_TWILIO_AUTH_TOKEN: 't',
      RUTA_TWILIO_WHATSAPP_FROM: '+1555',
    });
    expect(whatsappOnly.messaging.twilio).toMatchObject({ smsFrom: null, whatsappFrom: '+1555' });
  });

  it('never echoes a database password', () => {
    const err = errorFor({ DATABASE_URL: 'mysql://root:hunter2@db/ruta' });
    expect(err.message).not.toContain('hunter2');
    expect(err.message).toContain('got "mysql:…"');
  });

  it('says what to write for a bare path, the usual slip', () => {
    expect(errorFor({ DATABASE_URL: './data/ruta.db' }).message).toBe(
      'DATABASE_URL must be sqlite:<path> or postgres://…, got a bare path: write sqlite:./data/ruta.db',
    );
  });

  it('ruta migrate names DATABASE_URL when the database cannot be reached, without its password', async () => {
    // A port nothing listens on: taken, then freed.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const res = spawnSync(process.execPath, [...RUTA_CLI, 'migrate'], {
      env: { ...process.env, DATABASE_URL: `postgres://ruta:hunter2@127.0.0.1:${port}/ruta` },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/^ruta: DATABASE_URL: cannot reach the database \(connect ECONNREFUSED/);
    expect(res.stderr).not.toContain('hunter2');
  });

  it('ruta migrate fails at start with the message and no stack trace', () => {
    const res = spawnSync(process.execPath, [...RUTA_CLI, 'migrate'], {
      env: { ...process.env, DATABASE_URL: 'sqlite::memory:', RUTA_DEFAULT_PRICING: '{"base_fee":-1}' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('RUTA_DEFAULT_PRICING.base_fee must be a number >= 0');
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});
