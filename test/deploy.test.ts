// The Compose example of a multi-instance deployment (deploy/compose/, docs/operations.md) cannot be
// started in CI (no Docker there), so its shape is checked against what Ruta knows: each container
// runs a real `ruta` command with real options, its environment passes Ruta's own configuration
// check, and the proxy balances over exactly the API instances, on their port, with readiness.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/shared/config.js';
import { RUTA_CLI } from './cli-run.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, unknown> | string[];
}

const compose = parse(readFileSync(`${ROOT}deploy/compose/compose.yaml`, 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const caddyfile = readFileSync(`${ROOT}deploy/compose/Caddyfile`, 'utf8');
const ruta = Object.entries(compose.services).filter(([, s]) => s.image === 'ruta:local');

/** The `ruta …` words of a container's command (after node, its flags and dist/cli.js). */
function rutaArgs(s: Service): string[] {
  const cmd = s.command ?? [];
  expect(cmd[0]).toBe('node');
  const entry = cmd.indexOf('dist/cli.js');
  expect(entry).toBeGreaterThan(0);
  return cmd.slice(entry + 1);
}

describe('deploy/compose', () => {
  let help = '';
  beforeAll(async () => {
    help = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [...RUTA_CLI, '--help'], { cwd: ROOT, timeout: 120_000 }, (err, out) =>
        err ? reject(err) : resolve(out),
      ),
    );
  }, 150_000);

  it('runs two API instances, two workers, PostgreSQL and an S3 store', () => {
    const roles = ruta.map(([, s]) => rutaArgs(s).join(' '));
    expect(roles.filter((r) => r === 'serve --api-only')).toHaveLength(2);
    expect(roles.filter((r) => r === 'worker')).toHaveLength(2);
    expect(roles).toContain('migrate');
    expect(compose.services.postgres).toBeDefined();
    expect(compose.services.minio).toBeDefined();
  });

  it("each container's command is a ruta command with options `ruta --help` lists", () => {
    for (const [, s] of ruta) {
      const [command, ...options] = rutaArgs(s);
      expect(help).toMatch(new RegExp(`^ {2}${command}\\b`, 'm'));
      for (const option of options) expect(help).toContain(`[${option}]`);
    }
  });

  it("every container's environment passes Ruta's configuration check, with files on S3 behind one proxy", () => {
    for (const [, s] of ruta) {
      const config = loadConfig({ ...s.environment });
      expect(config.databaseUrl).toMatch(/^postgres:\/\/.+@postgres:5432\//);
      const files = new URL(config.filesUrl);
      expect([files.protocol, files.host, files.searchParams.get('endpoint')]).toEqual([
        's3:',
        'ruta',
        'http://minio:9000',
      ]);
      expect(config.trustProxy).toBe(1);
    }
  });

  it('the proxy balances over exactly the API instances, on their port, checking /readyz', () => {
    const upstreams = /reverse_proxy ([^{]+)\{/.exec(caddyfile)?.[1]?.trim().split(/\s+/);
    const port = loadConfig({}).port;
    const apis = ruta.filter(([, s]) => rutaArgs(s)[0] === 'serve').map(([name]) => `${name}:${port}`);
    expect(upstreams?.sort()).toEqual(apis.sort());
    expect(caddyfile).toMatch(/health_uri \/readyz/);
    expect(caddyfile).toMatch(/@internal path \/metrics \/healthz \/readyz/);
  });
});
