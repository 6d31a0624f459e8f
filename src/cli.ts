#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { AppContext } from './app.js';
import { findAccount, findKey } from './features/accounts/repo.js';
import { createAccount, createKey, revoke } from './features/accounts/service.js';
import { openContext, serve, worker } from './server.js';
import { loadConfig } from './shared/config.js';
import { openDatabase } from './shared/db/index.js';
import { migrate } from './shared/db/migrate.js';
import type { Mode } from './shared/db/schema.js';

const USAGE = `Usage: ruta <command>

  serve [--api-only]                      start the API (and the in-process webhook dispatcher,
                                          unless --api-only: then run \`ruta worker\` beside it)
  worker                                  run the webhook dispatcher alone
  migrate                                 apply database migrations
  accounts create --name NAME [--currency CUR] [--origin-lat LAT --origin-lng LNG] [--json]
  keys create (--account ID | --operator) --mode test|live [--json]
  keys revoke KEY_ID

Reads DATABASE_URL (default sqlite:./data/ruta.db).`;

class UsageError extends Error {}

function num(v: string | undefined, name: string, limit: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || Math.abs(n) > limit) {
    throw new UsageError(`--${name} must be a number from -${limit} to ${limit}`);
  }
  return n;
}

type Values = Record<string, string | boolean | undefined>;
type Action = (ctx: AppContext, out: (obj: unknown, human: string) => void) => Promise<void>;

/** Checks the arguments before anything touches the database, and returns what to run. */
function plan(noun: string | undefined, verb: string | undefined, arg: string | undefined, values: Values): Action {
  if (noun === 'accounts' && verb === 'create') {
    const name = values.name;
    if (typeof name !== 'string') throw new UsageError('--name is required');
    if (name.trim() === '') throw new UsageError('--name must not be blank');
    const currency = typeof values.currency === 'string' ? values.currency.toUpperCase() : undefined;
    if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) {
      throw new UsageError('--currency must be a 3-letter ISO 4217 code, e.g. USD');
    }
    const originLat = num(values['origin-lat'] as string | undefined, 'origin-lat', 90);
    const originLng = num(values['origin-lng'] as string | undefined, 'origin-lng', 180);
    if ((originLat === undefined) !== (originLng === undefined)) {
      throw new UsageError('pass both --origin-lat and --origin-lng, or neither');
    }
    return async (ctx, out) => {
      const { account, keys } = await createAccount(ctx.db, ctx.config, { name, currency, originLat, originLng });
      out(
        { account: { id: account.id, name: account.name }, keys },
        `Account ${account.id} (${account.name}, ${account.currency})\n  test key: ${keys.test}\n  live key: ${keys.live}\nKeys are shown once; store them now.`,
      );
    };
  }
  if (noun === 'keys' && verb === 'create') {
    const mode = values.mode as Mode;
    if (mode !== 'test' && mode !== 'live') throw new UsageError('--mode must be test or live');
    const account = typeof values.account === 'string' ? values.account : undefined;
    if (Boolean(account) === Boolean(values.operator)) {
      throw new UsageError('pass exactly one of --account ID or --operator');
    }
    return async (ctx, out) => {
      if (account && !(await findAccount(ctx.db, account))) throw new UsageError(`no such account: ${account}`);
      const key = await createKey(ctx.db, {
        role: values.operator ? 'operator' : 'merchant',
        mode,
        accountId: account ?? null,
      });
      out(key, `Key ${key.id} (${key.role}, ${key.mode}): ${key.secret}\nShown once; store it now.`);
    };
  }
  if (noun === 'keys' && verb === 'revoke') {
    if (!arg) throw new UsageError('keys revoke needs a KEY_ID');
    return async (ctx, out) => {
      if (!(await findKey(ctx.db, arg))) throw new UsageError(`no such key: ${arg}`);
      const revoked = await revoke(ctx.db, arg);
      out({ id: arg, revoked: true }, revoked ? `Key ${arg} revoked.` : `Key ${arg} was already revoked.`);
    };
  }
  throw new UsageError(`unknown command: ${[noun, verb, arg].filter(Boolean).join(' ') || '(none)'}`);
}

async function admin(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      currency: { type: 'string' },
      'origin-lat': { type: 'string' },
      'origin-lng': { type: 'string' },
      account: { type: 'string' },
      operator: { type: 'boolean' },
      mode: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (positionals.length > 3) throw new UsageError(`unexpected argument: ${positionals[3]}`);
  const [noun, verb, arg] = positionals;
  const action = plan(noun, verb, arg, values);
  const ctx = await openContext();
  const out = (obj: unknown, human: string) => console.log(values.json ? JSON.stringify(obj) : human);
  try {
    await action(ctx, out);
  } finally {
    await ctx.database.close();
  }
}

async function main(argv: string[]): Promise<void> {
  switch (argv[0]) {
    case 'serve':
      if (argv.length > 2 || (argv[1] !== undefined && argv[1] !== '--api-only')) {
        throw new UsageError(`unexpected argument: ${argv[argv[1] === '--api-only' ? 2 : 1]}`);
      }
      await serve({ background: argv[1] !== '--api-only' });
      return;
    case 'worker':
      await worker();
      return;
    case 'migrate': {
      const database = openDatabase(loadConfig().databaseUrl);
      try {
        const applied = await migrate(database);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await database.close();
      }
      return;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return;
    default:
      await admin(argv);
  }
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`ruta: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  console.error(`ruta: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
