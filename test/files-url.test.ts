import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/shared/config.js';
import { ConfigError } from '../src/shared/config-values.js';
import { parseFilesUrl } from '../src/shared/files-url.js';

const filesUrl = (env: Record<string, string>) => loadConfig({ RUTA_LOG_LEVEL: 'silent', ...env }).filesUrl;

describe('RUTA_FILES_URL', () => {
  it('defaults to ./data/files; RUTA_FILES_DIR still names a directory; RUTA_FILES_URL wins over it', () => {
    expect(filesUrl({})).toBe(`file:${resolve('data/files')}`);
    expect(filesUrl({ RUTA_FILES_DIR: './up' })).toBe(`file:${resolve('up')}`);
    expect(filesUrl({ RUTA_FILES_DIR: './up', RUTA_FILES_URL: 'file:/srv/files' })).toBe('file:/srv/files');
    expect(filesUrl({ RUTA_FILES_URL: 'file:///srv/a%20b' })).toBe('file:/srv/a b');
    expect(filesUrl({ RUTA_FILES_URL: 'file:rel/dir' })).toBe(`file:${resolve('rel/dir')}`);
  });

  it('reads an s3 URL: bucket, prefix, endpoint, region, path style, profile', () => {
    expect(
      parseFilesUrl(
        's3://ruta-files/prod/uploads/?endpoint=http://minio:9000/&region=eu-1&force_path_style=true&profile=r2',
      ),
    ).toEqual({
      kind: 's3',
      bucket: 'ruta-files',
      prefix: 'prod/uploads/',
      endpoint: 'http://minio:9000',
      region: 'eu-1',
      forcePathStyle: true,
      profile: 'r2',
    });
    expect(parseFilesUrl('s3://ruta-files')).toEqual({
      kind: 's3',
      bucket: 'ruta-files',
      prefix: '',
      forcePathStyle: false,
    });
    // Canonical: one form per location, so `files migrate` can tell a store from itself.
    expect(filesUrl({ RUTA_FILES_URL: 's3://b-1/p?region=x&force_path_style=1' })).toBe(
      's3://b-1/p/?region=x&force_path_style=true',
    );
  });

  it('refuses mistakes at start-up, naming the variable and never echoing a credential', () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ RUTA_FILES_URL: 'ftp://x' }, 'RUTA_FILES_URL', 'must be file:<directory> or s3://'],
      [{ RUTA_FILES_URL: 's3://bkt/p?endpiont=http://x' }, 'RUTA_FILES_URL', 'unknown parameter "endpiont"'],
      [{ RUTA_FILES_URL: 's3://bkt/p?endpoint=minio:9000' }, 'RUTA_FILES_URL', 'endpoint= must be an http(s) URL'],
      [{ RUTA_FILES_URL: 's3://B_ad/p' }, 'RUTA_FILES_URL', 'needs a bucket name'],
      [{ RUTA_FILES_URL: 's3://bkt:9000/p' }, 'RUTA_FILES_URL', 'endpoint='],
      [{ RUTA_FILES_URL: 's3://bkt/p?force_path_style=yes' }, 'RUTA_FILES_URL', 'force_path_style='],
      [{ RUTA_FILES_URL: 's3://AKIAX:hunter2@bucket/p' }, 'RUTA_FILES_URL', 'must not hold credentials'],
      [{ RUTA_FILES_URL: 'file:' }, 'RUTA_FILES_URL', 'needs a directory'],
    ];
    for (const [env, variable, text] of cases) {
      let err: unknown;
      try {
        filesUrl(env);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(env)).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe(variable);
      expect((err as Error).message).toContain(text);
      expect((err as Error).message).not.toContain('hunter2');
    }
  });
});
