#!/usr/bin/env -S node --max-semi-space-size=4
import { parseArgs } from 'node:util';
import { accountCommands } from './cli/accounts.js';
import { type Command, UsageError, type Values } from './cli/command.js';
import { filesMigrateCommand } from './cli/files.js';
import { optimizeCommand } from './cli/optimize.js';
import { ordersImportCommand } from './cli/orders-import.js';
import { userCommands } from './cli/users.js';
import { webhooksListenCommand } from './cli/webhooks-listen.js';
import { loadConfig } from './shared/config.js';

/**
 * Every command of `ruta`, in the order `ruta --help` lists them: its words, usage lines, options
 * and positional arguments, and what it runs. cli/command.ts says what a row holds.
 */
const COMMANDS: Command[] = [
  {
    name: 'serve',
    usage: `  serve [--api-only]                      start the API and the background work (webhook dispatcher,
                                          order imports, route plan solves); --api-only: the API
                                          alone, with \`ruta worker\` beside it`,
    options: { 'api-only': { type: 'boolean' } },
    plan:
      ({ values }) =>
      async () => {
        // Loaded here, not at the top: the other commands start without the HTTP app.
        const { serve } = await import('./server.js');
        await serve({ background: !values['api-only'] });
      },
  },
  {
    name: 'worker',
    usage:
      '  worker                                  run the background work alone (webhook dispatcher, order imports,\n                                          route plan solves)',
    plan: () => async () => {
      const { worker } = await import('./server.js');
      await worker();
    },
  },
  {
    name: 'migrate',
    usage: '  migrate                                 apply database migrations',
    plan: () => async () => {
      const [{ openDatabase }, { migrate }, { unreachable }] = await Promise.all([
        import('./shared/db/index.js'),
        import('./shared/db/migrate.js'),
        import('./shared/open-context.js'),
      ]);
      const config = loadConfig();
      const database = openDatabase(config.databaseUrl);
      try {
        const applied = await migrate(database, { timezone: config.defaultTimezone }).catch((err) => {
          throw unreachable(err);
        });
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await database.close();
      }
    },
  },
  ...accountCommands,
  ...userCommands,
  webhooksListenCommand,
  ordersImportCommand,
  filesMigrateCommand,
  optimizeCommand,
];

const USAGE = `Usage: ruta <command>

${COMMANDS.map((c) => c.usage).join('\n')}

Reads DATABASE_URL (default sqlite:./data/ruta.db).`;

const HELP = new Set(['help', '--help', '-h']);

/**
 * `ruta keys create --help`, `ruta accounts -h`: the usage of the commands those words name (a
 * command, or every command of a group), or undefined when no --help/-h comes before a `--`. It
 * runs nothing, so asking a command for help never opens a database or a port.
 */
function helpFor(argv: string[]): string | undefined {
  const end = argv.indexOf('--');
  const before = end < 0 ? argv : argv.slice(0, end);
  if (!before.some((a) => a === '--help' || a === '-h')) return undefined;
  const options = before.findIndex((a) => a.startsWith('-'));
  const words = before.slice(0, options);
  const named = COMMANDS.filter((c) => {
    const name = c.name.split(' ');
    const n = Math.min(name.length, words.length);
    return name.slice(0, n).every((w, i) => words[i] === w);
  });
  if (named.length === 0) throw new UsageError(`unknown command: ${words.join(' ')}`);
  return `Usage: ruta ${words.length > 0 && named.length === 1 ? named[0]?.name : '<command>'}

${named.map((c) => c.usage).join('\n')}

Reads DATABASE_URL (default sqlite:./data/ruta.db).`;
}

/** The command named by the first words of argv (the longest match), and the arguments after them. */
function find(argv: string[]): { command: Command; rest: string[] } {
  let best: { command: Command; rest: string[] } | undefined;
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.command.name.split(' ').length)) {
      best = { command, rest: argv.slice(words.length) };
    }
  }
  if (best) return best;
  const options = argv.findIndex((a) => a.startsWith('-'));
  const words = argv.slice(0, options < 0 ? argv.length : options);
  throw new UsageError(`unknown command: ${words.length > 0 ? words.join(' ') : argv[0]}`);
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === undefined || HELP.has(argv[0])) {
    console.log(USAGE);
    return;
  }
  const help = helpFor(argv);
  if (help !== undefined) {
    console.log(help);
    return;
  }
  const { command, rest } = find(argv);
  // strict: an unknown option is a usage error (ERR_PARSE_ARGS_UNKNOWN_OPTION), as is a missing value.
  const { values, positionals } = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true });
  const extra = positionals[command.args?.length ?? 0];
  if (extra !== undefined) throw new UsageError(`unexpected argument: ${extra}`);
  const code = await command.plan({ values: values as Values, args: positionals })();
  if (typeof code === 'number') process.exitCode = code;
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`ruta: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  console.error(`ruta: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
