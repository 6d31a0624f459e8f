#!/usr/bin/env -S node --max-semi-space-size=4
import { parseArgs } from 'node:util';
import { OPTIMIZE_USAGE, OptimizeUsageError, optimize } from './cli/optimize.js';
import { ORDERS_IMPORT_USAGE, ordersImport, planImport } from './cli/orders-import.js';
import { USERS_USAGE, usersCommand } from './cli/users.js';
import { listen } from './cli/webhooks-listen.js';
import { findAccount, findKey, listAccounts, listKeys } from './features/accounts/repo.js';
import { createAccount, createKey, revoke } from './features/accounts/service.js';
import { openContext, serve, worker } from './server.js';
import { loadConfig } from './shared/config.js';
import type { AppContext } from './shared/context.js';
import { openDatabase } from './shared/db/index.js';
import { migrate } from './shared/db/migrate.js';
import type { Mode } from './shared/db/schema.js';

const USAGE = `Usage: ruta <command>

  serve [--api-only]                      start the API (and the in-process webhook dispatcher,
                                          unless --api-only: then run \`ruta worker\` beside it)
  worker                                  run the background work alone (webhook dispatcher, order imports)
  migrate                                 apply database migrations
  accounts create --name NAME [--currency CUR] [--origin-lat LAT --origin-lng LNG] [--json]
  accounts list [--json]
  keys create (--account ID | --operator) --mode test|live [--json]
                                          prints the secret alone on stdout: KEY=$(ruta keys create …)
  keys list [--account ID] [--json]       ids, roles, modes and masked keys; never a secret
  keys revoke KEY_ID
${USERS_USAGE}
  webhooks listen [--port N] [--secret whsec_…]
                                          a local webhook receiver on 127.0.0.1 (default port 4242)
                                          that prints each delivery and checks its signatures; the
                                          server must run with RUTA_WEBHOOK_ALLOW_INSECURE=1 to send to it
${ORDERS_IMPORT_USAGE}
${OPTIMIZE_USAGE}

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
/** `human` goes to stdout and `note` to stderr, so `$(ruta …)` captures just the value; --json prints `obj`. */
type Out = (obj: unknown, human: string, note?: string) => void;
type Action = (ctx: AppContext, out: Out) => Promise<void>;

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** Columns padded to their widest cell. */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [head, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

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
      out(key, key.secret, `Key ${key.id} (${key.role}, ${key.mode}). The secret is shown once; store it now.`);
    };
  }
  if (noun === 'accounts' && verb === 'list') {
    if (arg) throw new UsageError(`unexpected argument: ${arg}`);
    return async (ctx, out) => {
      const accounts = (await listAccounts(ctx.db)).map((a) => ({
        id: a.id,
        name: a.name,
        currency: a.currency,
        created_at: when(a.created_at),
      }));
      const rows = accounts.map((a) => [a.id, a.name, a.currency, a.created_at]);
      out(accounts, accounts.length ? table(['ID', 'NAME', 'CURRENCY', 'CREATED'], rows) : 'No accounts yet.');
    };
  }
  if (noun === 'keys' && verb === 'list') {
    if (arg) throw new UsageError(`unexpected argument: ${arg}`);
    const account = typeof values.account === 'string' ? values.account : undefined;
    return async (ctx, out) => {
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
      out(keys, keys.length ? table(head, rows) : 'No keys.');
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
  const { ctx, database } = await openContext();
  const out: Out = (obj, human, note) => {
    if (values.json) return console.log(JSON.stringify(obj));
    console.log(human);
    if (note) console.error(note);
  };
  try {
    await action(ctx, out);
  } finally {
    await database.close();
  }
}

async function webhooks(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { port: { type: 'string' }, secret: { type: 'string' } },
  });
  if (positionals[0] !== 'listen') throw new UsageError(`unknown command: webhooks ${positionals.join(' ')}`.trim());
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`);
  const port = values.port === undefined ? 4242 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || values.port?.trim() === '') {
    throw new UsageError('--port must be an integer from 0 to 65535');
  }
  const secret = values.secret;
  if (secret !== undefined && !/^whsec_\S+$/.test(secret)) throw new UsageError('--secret must be a whsec_… secret');
  const server = await listen({ port, secret, print: (line) => console.log(line) });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  console.log(
    `Listening on http://127.0.0.1:${bound}/ (${secret ? 'checking signatures' : 'no --secret: signatures not checked'}).`,
  );
  console.log('Ruta sends to it only when started with RUTA_WEBHOOK_ALLOW_INSECURE=1. Ctrl-C stops.');
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
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
    case 'webhooks':
      await webhooks(argv.slice(1));
      return;
    case 'orders': {
      const plan = planImport(argv.slice(1), (msg) => new UsageError(msg));
      const { ctx, database } = await openContext();
      try {
        process.exitCode = await ordersImport(ctx, plan);
      } finally {
        await database.close();
      }
      return;
    }
    case 'users':
      await usersCommand(argv.slice(1));
      return;
    case 'optimize':
      await optimize(argv.slice(1)).catch((err) => {
        throw err instanceof OptimizeUsageError ? new UsageError(err.message) : err;
      });
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
  const usage = err instanceof UsageError || (err instanceof Error && err.name === 'UsageError');
  if (usage || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`ruta: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  console.error(`ruta: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
