import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where uploaded files live (`RUTA_FILES_URL`, and `ruta files migrate --to`): a directory, or a
 * bucket and prefix in an S3-compatible store. The URL carries no secret: S3 credentials come from
 * the AWS SDK's standard chain (environment, shared config `profile=`, instance or pod role), so
 * the URL may be logged and shown.
 */
export type FilesLocation =
  | { kind: 'file'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      /** '' or ends with '/': an object's key is prefix + file id. */
      prefix: string;
      endpoint?: string;
      region?: string;
      forcePathStyle: boolean;
      profile?: string;
    };

export const DEFAULT_FILES_URL = 'file:./data/files';

const S3_PARAMS = ['endpoint', 'region', 'force_path_style', 'profile'];

/** Parses a files URL; throws an Error whose message says what is wrong, never echoing a credential. */
export function parseFilesUrl(raw: string): FilesLocation {
  const value = raw.trim();
  if (value.startsWith('file:')) {
    const rest = value.slice('file:'.length);
    if (rest === '' || rest === '//') throw new Error('file: needs a directory, e.g. file:./data/files');
    // file:///abs/path is a URL; file:./rel and file:/abs are plain paths after the scheme.
    const dir = rest.startsWith('//') ? fileURLToPath(value) : rest;
    return { kind: 'file', dir: resolve(dir) };
  }
  if (value.startsWith('s3://')) return parseS3(value);
  throw new Error(`must be file:<directory> or s3://bucket/prefix?…, got "${value.split(':')[0]}:…"`);
}

function parseS3(value: string): FilesLocation {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('is not a valid s3:// URL');
  }
  if (url.username || url.password) {
    throw new Error(
      'must not hold credentials: S3 keys come from the AWS SDK (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profile=, or a role)',
    );
  }
  const bucket = url.hostname;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new Error(`needs a bucket name (3-63 lowercase letters, digits, dots, hyphens), got "${bucket}"`);
  }
  if (url.port) throw new Error('has a port after the bucket; put the server in endpoint=');
  const path = decodeURIComponent(url.pathname).replace(/^\/+/, '');
  const prefix = path === '' ? '' : `${path.replace(/\/+$/, '')}/`;
  for (const key of url.searchParams.keys()) {
    if (!S3_PARAMS.includes(key)) throw new Error(`has an unknown parameter "${key}"; known: ${S3_PARAMS.join(', ')}`);
  }
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined) {
    let e: URL | undefined;
    try {
      e = new URL(endpoint);
    } catch {}
    if (!e || !['http:', 'https:'].includes(e.protocol) || e.username || e.password) {
      throw new Error('endpoint= must be an http(s) URL without credentials');
    }
  }
  const style = url.searchParams.get('force_path_style') ?? 'false';
  if (!['true', 'false', '1', '0'].includes(style)) throw new Error('force_path_style= must be true or false');
  const region = url.searchParams.get('region') || undefined;
  const profile = url.searchParams.get('profile') || undefined;
  return {
    kind: 's3',
    bucket,
    prefix,
    ...(endpoint ? { endpoint: endpoint.replace(/\/+$/, '') } : {}),
    ...(region ? { region } : {}),
    forcePathStyle: style === 'true' || style === '1',
    ...(profile ? { profile } : {}),
  };
}

/** The canonical text of a location (absolute directory, parameters in one order). */
export function formatFilesUrl(loc: FilesLocation): string {
  if (loc.kind === 'file') return `file:${loc.dir}`;
  const params = new URLSearchParams();
  if (loc.endpoint) params.set('endpoint', loc.endpoint);
  if (loc.region) params.set('region', loc.region);
  if (loc.forcePathStyle) params.set('force_path_style', 'true');
  if (loc.profile) params.set('profile', loc.profile);
  const q = params.toString();
  return `s3://${loc.bucket}/${loc.prefix}${q ? `?${q}` : ''}`;
}
