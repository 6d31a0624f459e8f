import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Scope } from '../../shared/auth.js';
import type { Config } from '../../shared/config.js';
import type { AppContext } from '../../shared/context.js';
import type { FilesTable } from '../../shared/db/schema.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { iso } from '../../shared/time.js';
import * as repo from './repo.js';
import type { FileObject, FilePurpose, FileType } from './schemas.js';
import { signedUrl, verifyLink } from './signing.js';

/** Enough leading bytes to tell every accepted type apart (WebP needs 12). */
export const MAGIC_BYTES = 12;

export function notTheImage(declared: string, actual: FileType | undefined): ApiError {
  const err = new ApiError(
    'parameter_invalid',
    `The body is not a valid ${declared} image${actual ? ` (it looks like ${actual})` : ''}.`,
  );
  // Raised inside body parsing, where Fastify reads the status from `statusCode`.
  return Object.assign(err, { statusCode: err.status });
}

/** What the bytes are, judged by their magic numbers rather than the client's Content-Type. */
export function sniff(bytes: Buffer): FileType | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP')
    return 'image/webp';
  return undefined;
}

const pathOf = (config: Config, id: string) => join(config.filesDir, id);

export async function present(ctx: AppContext, f: FilesTable, ttlSeconds?: number): Promise<FileObject> {
  return {
    id: f.id,
    object: 'file',
    purpose: f.purpose,
    type: f.mime,
    size: f.size,
    sha256: f.sha256,
    livemode: f.mode === 'live',
    url: await fileUrl(ctx, f.id, ttlSeconds),
    created_at: iso(f.created_at),
  };
}

export function fileUrl(ctx: AppContext, id: string, ttlSeconds = ctx.config.fileUrlTtlSeconds): Promise<string> {
  return signedUrl(ctx.db, ctx.config.publicUrl, id, ttlSeconds);
}

export async function upload(
  ctx: AppContext,
  scope: Scope,
  purpose: FilePurpose,
  declared: string,
  body: { bytes: Buffer; sha256: string },
): Promise<FileObject> {
  const { bytes } = body;
  if (bytes.length === 0) throw new ApiError('parameter_missing', 'The request body must hold the image bytes.');
  const actual = sniff(bytes);
  if (actual === undefined || actual !== declared) throw notTheImage(declared, actual);
  const now = ctx.clock();
  const row: FilesTable = {
    id: newId('file', now),
    account_id: scope.accountId,
    mode: scope.mode,
    purpose,
    mime: actual,
    size: bytes.length,
    sha256: body.sha256, // hashed while the body arrived (upload-body.ts)
    created_at: now,
  };
  await mkdir(ctx.config.filesDir, { recursive: true });
  // Written under a temporary name and renamed, so a reader never sees half a file.
  const tmp = `${pathOf(ctx.config, row.id)}.part`;
  await writeFile(tmp, bytes);
  await rename(tmp, pathOf(ctx.config, row.id));
  try {
    await repo.insertFile(ctx.db, row);
  } catch (err) {
    await unlink(pathOf(ctx.config, row.id)).catch(() => {});
    throw err;
  }
  return present(ctx, row);
}

export async function getFile(ctx: AppContext, scope: Scope, id: string): Promise<FileObject> {
  const row = await repo.findFileInScope(ctx.db, scope, id);
  if (!row) throw notFound('file', id);
  return present(ctx, row);
}

/** The bytes behind a signed link; a tampered, expired or unknown link is one and the same 403. */
export async function content(
  ctx: AppContext,
  id: string,
  expires: string | undefined,
  signature: string | undefined,
): Promise<{ mime: string; bytes: Buffer }> {
  const invalid = new ApiError('file_link_invalid', 'This file link is invalid or has expired.');
  if (!expires || !/^[0-9]{1,15}$/.test(expires) || !signature) throw invalid;
  if (!(await verifyLink(ctx.db, id, Number(expires), signature))) throw invalid;
  const row = await repo.findFile(ctx.db, id);
  if (!row) throw invalid;
  try {
    return { mime: row.mime, bytes: await readFile(pathOf(ctx.config, id)) };
  } catch (err) {
    // The row outlived its bytes (a wiped or unshared files directory): say so rather than 500.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('file', id);
    throw err;
  }
}

/**
 * A file a proof may cite: uploaded in the order's environment, by the order's account or by the
 * carrier, visible to the caller, and of the right purpose. Anything else is a 422 on `param`.
 */
export async function fileForProof(
  ctx: AppContext,
  scope: Scope,
  order: { account_id: string; mode: string },
  id: string,
  purpose: FilePurpose,
  param: string,
): Promise<FilesTable> {
  const row = await repo.findFile(ctx.db, id);
  const visible =
    row &&
    row.mode === order.mode &&
    (row.account_id === null || row.account_id === order.account_id) &&
    (scope.accountId === null || row.account_id === scope.accountId);
  if (!row || !visible) throw new ApiError('parameter_invalid', `Invalid ${param}: no such file '${id}'.`, param);
  if (row.purpose !== purpose) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid ${param}: file '${id}' was uploaded with purpose ${row.purpose}, not ${purpose}.`,
      param,
    );
  }
  return row;
}
