import type { Mode } from './columns.js';

/** `logo`: a merchant's brand on the tracking page (DESIGN §15). */
export const FILE_PURPOSES = ['signature', 'photo', 'logo'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];
export const FILE_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type FileType = (typeof FILE_TYPES)[number];

/** Created by 002_lifecycle. */
export interface FilesTable {
  id: string;
  account_id: string | null;
  mode: Mode;
  purpose: FilePurpose;
  mime: FileType;
  size: number;
  sha256: string;
  created_at: number;
}
