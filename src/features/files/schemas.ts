import { type Static, Type } from 'typebox';

import { FILE_PURPOSES, FILE_TYPES } from '../../shared/db/tables/files.js';

// Stored values are defined with the table; the API shows the same ones.
export { FILE_PURPOSES, FILE_TYPES, type FilePurpose, type FileType } from '../../shared/db/tables/files.js';
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export const UploadQuery = Type.Object(
  {
    purpose: Type.Enum([...FILE_PURPOSES], {
      description: 'What the image is: a proof (`signature`, `photo`) or a brand `logo`',
    }),
  },
  { additionalProperties: false },
);

// Loose on purpose: a link with a missing or mangled part is just an invalid link (403), not a 422.
export const ContentQuery = Type.Object({
  expires: Type.Optional(
    Type.String({ maxLength: 20, description: 'Unix seconds after which the link stops working' }),
  ),
  signature: Type.Optional(Type.String({ maxLength: 128 })),
});
export type ContentQuery = Static<typeof ContentQuery>;

export const FileObject = Type.Object(
  {
    id: Type.String({ examples: ['file_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('file'),
    purpose: Type.Enum([...FILE_PURPOSES]),
    type: Type.Enum([...FILE_TYPES]),
    size: Type.Integer({ description: 'Bytes' }),
    sha256: Type.String({ description: 'Hex SHA-256 of the bytes' }),
    livemode: Type.Boolean(),
    url: Type.String({ format: 'uri', description: 'Signed link that needs no key and expires' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'File' },
);
export type FileObject = Static<typeof FileObject>;
