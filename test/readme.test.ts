import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUTA_CLI } from './cli-run.js';

// The README's first delivery, run line by line in bash as a newcomer pastes it, against a real
// server. Only the ports change (this machine's servers take free ones); the lines run as written,
// through the build, which test/global-setup.ts keeps as fresh as the sources.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The shell lines of the section, in order, and the server command from its first block. */
function firstDelivery(): { server: string; lines: string[] } {
  const section = README.split('\n## Your first delivery\n')[1]?.split('\n## ')[0] ?? '';
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const [server = '', ...rest] = blocks;
  return { server: server.trim(), lines: rest.flatMap((b) => b.split('\n')).filter((l) => l.trim() !== '') };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once `text` matches, or rejects after `ms`. */
function waitFor(read: () => string, pattern: RegExp, ms: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const m = pattern.exec(read());
      if (m) {
        clearInterval(timer);
        resolve(m);
      } else if (Date.now() - started > ms) {
        clearInterval(timer);
        reject(new Error(`timed out waiting for ${pattern}: ${read().slice(-2000)}`));
      }
    }, 50);
  });
}

const SLOW = 300_000;

describe('README: your first delivery', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ruta-readme-'));
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite:${join(dir, 'ruta.db')}`,
    RUTA_FILES_DIR: join(dir, 'files'),
    RUTA_LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
  };
  let server: ChildProcessWithoutNullStreams | undefined;
  let apiPort = 0;

  beforeAll(async () => {
    const { server: command } = firstDelivery();
    expect(command).toBe('RUTA_WEBHOOK_ALLOW_INSECURE=1 npm start');
    apiPort = await freePort();
    server = spawn(process.execPath, [...RUTA_CLI, 'serve'], {
      cwd: ROOT,
      env: { ...env, RUTA_WEBHOOK_ALLOW_INSECURE: '1', PORT: String(apiPort), RUTA_LOG_LEVEL: 'info' },
    });
    let log = '';
    server.stdout.on('data', (c: Buffer) => {
      log += c.toString();
    });
    await waitFor(() => log, /"msg":"ruta listening"/, 120_000);
  }, SLOW);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server?.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('is short', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(200);
  });

  it(
    'runs line by line from an account to a verified webhook, with no placeholder',
    async () => {
      const { lines } = firstDelivery();
      expect(lines.join('\n')).not.toMatch(/…|<[a-z_]+>|\b(acct|ord|cou|file|evt|we)_x+/i);
      const receiverPort = await freePort();
      const bash = spawn('bash', ['--norc', '--noprofile'], { cwd: ROOT, env });
      let out = '';
      let err = '';
      bash.stdout.on('data', (c: Buffer) => {
        out += c.toString();
      });
      bash.stderr.on('data', (c: Buffer) => {
        err += c.toString();
      });
      // Job control, as in an interactive shell, so that `kill %1` works.
      bash.stdin.write('set -m\n');
      const results: { line: string; code: number; output: string }[] = [];
      try {
        for (const [i, original] of lines.entries()) {
          const line = original
            .replace('http://localhost:3000', `http://127.0.0.1:${apiPort}`)
            .replaceAll('4242', String(receiverPort));
          const start = out.length;
          bash.stdin.write(`${line}\necho "__line_${i}__ $?"\n`);
          const done = await waitFor(() => out, new RegExp(`__line_${i}__ (\\d+)\\n`), 120_000);
          results.push({ line: original, code: Number(done[1]), output: out.slice(start, done.index) });
          // A person sees the receiver say it is listening before pasting the next line.
          if (line.endsWith('&')) await waitFor(() => out, /Listening on http:\/\/127\.0\.0\.1:\d+\//, 120_000);
        }
      } finally {
        bash.stdin.end();
        await new Promise((r) => bash.once('exit', r));
      }
      for (const r of results) {
        expect(r.code, `${r.line}\n${err.slice(-2000)}`).toBe(0);
        expect(r.output, r.line).not.toMatch(/undefined|"error"/);
      }
      const printed = (prefix: string) => results.find((r) => r.line.startsWith(prefix))?.output.trim();
      expect(printed(`curl -s $RUTA/v1/routes`)).toBe('assigned');
      expect(printed(`curl -s -X POST $RUTA/v1/orders/$ORDER_ID/pickup`)).toBe('picked_up');
      expect(printed(`curl -s -X POST $RUTA/v1/orders/$ORDER_ID/depart`)).toBe('in_transit');
      expect(printed(`curl -s $RUTA/v1/orders/$ORDER_ID/deliver`)).toBe('delivered');
      expect(err).toMatch(/The secret is shown once/);

      // The page the README sends the reader to, and the proof's signed link, both work without a key.
      const pageUrl = printed('echo "$RUTA/track/$TRACKING_CODE"') ?? '';
      const page = await fetch(pageUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Delivered');
      const signature = await fetch(printed('curl -s $RUTA/v1/orders/$ORDER_ID/proof') ?? '');
      expect(signature.status).toBe(200);
      expect(Buffer.from(await signature.arrayBuffer())).toEqual(
        readFileSync(join(ROOT, 'docs/examples/signature.png')),
      );

      expect(out).toMatch(/POST \/ruta {2}\S+ {2}order\.delivered {2}evt_\w+ {2}order ord_\w+ .*signature verified/);
      expect(out).not.toMatch(/signature INVALID/);
    },
    SLOW,
  );
});
