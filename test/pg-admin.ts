import pg from 'pg';

// What the test set-up (test/global-setup.ts) and the tests' own databases (test/helpers.ts) ask of
// PostgreSQL's server as a whole: create and drop databases. Kept apart from helpers.ts, which
// loads the whole app, so that the global set-up does not.

/** Runs one statement on its own connection to `url` (CREATE DATABASE cannot run in a pool's transaction). */
export async function adminQuery(url: string, text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/** `url` (the server's) naming database `name` instead. */
export function databaseUrl(url: string, name: string): string {
  const named = new URL(url);
  named.pathname = `/${name}`;
  return named.toString();
}
