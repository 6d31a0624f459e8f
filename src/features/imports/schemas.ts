import { type Static, Type } from 'typebox';
import { DATE_FORMATS, IMPORT_MODES, IMPORT_STATUSES, IMPORT_TYPES } from '../../shared/db/tables/order_imports.js';
import { AccountFilter } from '../../shared/params.js';

export {
  DATE_FORMATS,
  type DateFormat,
  IMPORT_MODES,
  IMPORT_STATUSES,
  IMPORT_TYPES,
  type ImportMode,
  type ImportStatus,
  type ImportType,
} from '../../shared/db/tables/order_imports.js';

export const MAX_IMPORT_BYTES = 10 * 1024 * 1024;
/** The import object shows at most this many row errors; failed_rows.csv has them all. */
export const MAX_SHOWN_ERRORS = 1000;

export const ImportRowError = Type.Object(
  {
    row: Type.Integer({ description: 'Spreadsheet row number, 1-based, the header being row 1' }),
    column: Type.Union([Type.String(), Type.Null()], { description: 'The column as its header is written' }),
    param: Type.Union([Type.String(), Type.Null()], { description: 'The field path, as POST /v1/orders names it' }),
    code: Type.String(),
    message: Type.String(),
  },
  { $id: 'OrderImportError' },
);

export const OrderImport = Type.Object(
  {
    id: Type.String({ examples: ['imp_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('order_import'),
    livemode: Type.Boolean(),
    status: Type.Enum([...IMPORT_STATUSES]),
    mode: Type.Enum([...IMPORT_MODES]),
    date_format: Type.Union([Type.Enum([...DATE_FORMATS]), Type.Null()]),
    content_type: Type.Enum([...IMPORT_TYPES]),
    size: Type.Integer({ description: 'Bytes uploaded' }),
    total_rows: Type.Integer({ description: 'Non-blank data rows in the file' }),
    processed_rows: Type.Integer(),
    created: Type.Integer({ description: 'Orders created' }),
    failed: Type.Integer({ description: 'Rows rejected' }),
    errors: Type.Array(ImportRowError, {
      description:
        'The first 1000 row errors, in row order: every wrong cell of a row (a row may have several), each row’s in the order of its columns',
    }),
    failure_message: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'OrderImport' },
);

export const OrderImportList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(OrderImport), has_more: Type.Boolean() },
  { $id: 'OrderImportList' },
);

/** A carrier (operator key, admin, dispatcher) imports for a merchant: which one. A merchant need not send it. */
const OnBehalfOf = AccountFilter(
  'Carrier callers (operator keys, admins, dispatchers), and required for them: the merchant account the import is for',
);

export const AccountQuery = Type.Object({ account: Type.Optional(OnBehalfOf) }, { additionalProperties: false });
export type AccountQuery = Static<typeof AccountQuery>;

export const CreateQuery = Type.Object(
  {
    account: Type.Optional(OnBehalfOf),
    mode: Type.Optional(Type.Enum([...IMPORT_MODES], { default: 'valid_rows' })),
    date_format: Type.Optional(
      Type.Enum([...DATE_FORMATS], { description: 'How to read dates like 01/02/2026: DMY, MDY, or ISO only' }),
    ),
  },
  { additionalProperties: false },
);

export const ListQuery = Type.Object(
  {
    account: Type.Optional(OnBehalfOf),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
