import type { Mode } from './columns.js';

export const FILE_PURPOSES = ['signature', 'photo'] as const;
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
