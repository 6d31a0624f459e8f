import { findAccount, findKey, listAccounts, listKeys } from '../features/accounts/repo.js';
import { createAccount, createKey, revoke } from '../features/accounts/service.js';
import { isCurrency } from '../shared/currency.js';
import type { Mode } from '../shared/db/schema.js';
import { isTimezone } from '../shared/local-time.js';
import { type Command, printer, table, UsageError, when, withContext } from './command.js';

// `ruta accounts …` and `ruta keys …`: how a carrier's first account and keys come to exist.

function num(v: string | boolean | undefined, name: string, limit: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n) || Math.abs(n) > limit) {
    throw new UsageError(`--${name} must be a number from -${limit} to ${limit}`);
  }
  return n;
}

const json = { json: { type: 'boolean' } } as const;

export const accountCommands: Command[] = [
  {
    name: 'accounts create',
    usage:
      '  accounts create --name NAME [--currency CUR] [--origin-lat LAT --origin-lng LNG] [--timezone TZ] [--json]',
    options: {
      name: { type: 'string' },
      currency: { type: 'string' },
      'origin-lat': { type: 'string' },
      'origin-lng': { type: 'string' },
      timezone: { type: 'string' },
      ...json,
    },
    plan({ values }) {
      const name = values.name;
      if (typeof name !== 'string') throw new UsageError('--name is required');
      if (name.trim() === '') throw new UsageError('--name must not be blank');
      // The limit of POST /v1/accounts and PATCH (accounts/schemas.ts).
      if (name.length > 200) throw new UsageError('--name must be at most 200 characters');
      const currency = typeof values.currency === 'string' ? values.currency.toUpperCase() : undefined;
      if (currency !== undefined && !isCurrency(currency)) {
        throw new UsageError('--currency must be an ISO 4217 currency code, e.g. USD');
      }
      const originLat = num(values['origin-lat'], 'origin-lat', 90);
      const originLng = num(values['origin-lng'], 'origin-lng', 180);
      if ((originLat === undefined) !== (originLng === undefined)) {
        throw new UsageError('pass both --origin-lat and --origin-lng, or neither');
      }
      // The zone of the account's days (docs/api.md); without it, the carrier's RUTA_DEFAULT_TIMEZONE.
      const timezone = typeof values.timezone === 'string' ? values.timezone : undefined;
      if (timezone !== undefined && !isTimezone(timezone)) {
        throw new UsageError('--timezone must be an IANA time zone, e.g. America/Lima');
      }
      return () =>
        withContext(async (ctx) => {
          const { account, keys } = await createAccount(ctx, { name, currency, originLat, originLng, timezone });
          printer(values)(
            { account: { id: account.id, name: account.name }, keys },
            `Account ${account.id} (${account.name}, ${account.currency})\n  test key: ${keys.test}\n  live key: ${keys.live}\nKeys are shown once; store them now.`,
          );
        });
    },
  },
  {
    name: 'accounts list',
    usage: '  accounts list [--json]',
    options: json,
    plan:
      ({ values }) =>
      () =>
        withContext(async (ctx) => {
          const accounts = (await listAccounts(ctx.db)).map((a) => ({
            id: a.id,
            name: a.name,
            currency: a.currency,
            created_at: when(a.created_at),
          }));
          const rows = accounts.map((a) => [a.id, a.name, a.currency, a.created_at]);
          printer(values)(
            accounts,
            accounts.length ? table(['ID', 'NAME', 'CURRENCY', 'CREATED'], rows) : 'No accounts yet.',
          );
        }),
  },
  {
    name: 'keys create',
    usage: `  keys create (--account ID | --operator) --mode test|live [--json]
                                          prints the secret alone on stdout: KEY=$(ruta keys create …)`,
    options: { account: { type: 'string' }, operator: { type: 'boolean' }, mode: { type: 'string' }, ...json },
    plan({ values }) {
      const mode = values.mode as Mode;
      if (mode !== 'test' && mode !== 'live') throw new UsageError('--mode must be test or live');
      const account = typeof values.account === 'string' ? values.account : undefined;
      if (Boolean(account) === Boolean(values.operator)) {
        throw new UsageError('pass exactly one of --account ID or --operator');
      }
      return () =>
        withContext(async (ctx) => {
          if (account && !(await findAccount(ctx.db, account))) throw new UsageError(`no such account: ${account}`);
          const key = await createKey(ctx, {
            role: values.operator ? 'operator' : 'merchant',
            mode,
            accountId: account ?? null,
          });
          printer(values)(
            key,
            key.secret,
            `Key ${key.id} (${key.role}, ${key.mode}). The secret is shown once; store it now.`,
          );
        });
    },
  },
  {
    name: 'keys list',
    usage: '  keys list [--account ID] [--json]       ids, roles, modes and masked keys; never a secret',
    options: { account: { type: 'string' }, ...json },
    plan({ values }) {
      const account = typeof values.account === 'string' ? values.account : undefined;
      return () =>
        withContext(async (ctx) => {
          if (account && !(await findAccount(ctx.db, account))) throw new UsageError(`no such account: ${account}`);
          const keys = (await listKeys(ctx.db, account)).map((k) => ({
            id: k.id,
            account: k.account_id,
            role: k.role,
            mode: k.mode,
            display: k.display,
            created_at: when(k.created_at),
            revoked_at: k.revoked_at === null ? null : when(k.revoked_at),
          }));
          const rows = keys.map((k) => [
            k.id,
            k.account ?? '-',
            k.role,
            k.mode,
            k.display,
            k.created_at,
            k.revoked_at ?? '-',
          ]);
          const head = ['ID', 'ACCOUNT', 'ROLE', 'MODE', 'KEY', 'CREATED', 'REVOKED'];
          printer(values)(keys, keys.length ? table(head, rows) : 'No keys.');
        });
    },
  },
  {
    name: 'keys revoke',
    usage: '  keys revoke KEY_ID',
    options: json,
    args: ['KEY_ID'],
    plan({ values, args: [id] }) {
      if (!id) throw new UsageError('keys revoke needs a KEY_ID');
      return () =>
        withContext(async (ctx) => {
          if (!(await findKey(ctx.db, id))) throw new UsageError(`no such key: ${id}`);
          const revoked = await revoke(ctx, id);
          printer(values)({ id, revoked: true }, revoked ? `Key ${id} revoked.` : `Key ${id} was already revoked.`);
        });
    },
  },
];
