import { type Static, Type } from 'typebox';
import {
  DATE_FORMATS,
  IMPORT_DUPLICATES,
  IMPORT_MODES,
  IMPORT_STATUSES,
  IMPORT_TYPES,
} from '../../shared/db/tables/order_imports.js';
import { AccountFilter } from '../../shared/params.js';

export {
  DATE_FORMATS,
  type DateFormat,
  IMPORT_DUPLICATES,
  IMPORT_MODES,
  IMPORT_STATUSES,
  IMPORT_TYPES,
  type ImportDuplicates,
  type ImportMode,
  type ImportStatus,
  type ImportType,
} from '../../shared/db/tables/order_imports.js';

export const MAX_IMPORT_BYTES = 10 * 1024 * 1024;
/** The import object shows at most this many row errors, and as many warnings; failed_rows.csv has every error. */
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

export const ImportRowWarning = Type.Object(
  {
    row: Type.Integer({ description: 'Spreadsheet row number, 1-based, the header being row 1: an order’s first row' }),
    column: Type.Union([Type.String(), Type.Null()], { description: 'The column as its header is written' }),
    param: Type.Union([Type.String(), Type.Null()], { description: 'The field path, as POST /v1/orders names it' }),
    code: Type.String({
      description:
        '`duplicate_external_order_id`: an order of the account and environment already has this external_order_id (the message names it), or a row above in the file does (the message names the row); `no_customer_phone`: neither customer.phone nor customer.whatsapp, while the account’s customer messages go by SMS or WhatsApp',
    }),
    message: Type.String(),
  },
  { $id: 'OrderImportWarning' },
);

export const OrderImport = Type.Object(
  {
    id: Type.String({ examples: ['imp_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('order_import'),
    livemode: Type.Boolean(),
    status: Type.Enum([...IMPORT_STATUSES]),
    mode: Type.Enum([...IMPORT_MODES]),
    duplicates: Type.Enum([...IMPORT_DUPLICATES], {
      description:
        'What became of an order whose external_order_id the account and environment already had: `create` (another order, with a warning) or `skip` (left out, counted in `skipped`)',
    }),
    date_format: Type.Union([Type.Enum([...DATE_FORMATS]), Type.Null()]),
    content_type: Type.Enum([...IMPORT_TYPES]),
    size: Type.Integer({ description: 'Bytes uploaded' }),
    total_rows: Type.Integer({ description: 'Non-blank data rows in the file' }),
    processed_rows: Type.Integer(),
    created: Type.Integer({ description: 'Orders created' }),
    failed: Type.Integer({ description: 'Rows rejected' }),
    skipped: Type.Integer({
      description: 'Orders left out with `duplicates: skip`, their external_order_id already taken (never created)',
    }),
    errors: Type.Array(ImportRowError, {
      description:
        'The first 1000 row errors, in row order: every wrong cell of a row (a row may have several), each row’s in the order of its columns',
    }),
    warnings: Type.Array(ImportRowWarning, {
      description:
        'The first 1000 warnings, in row order: what was imported (or skipped) but may not be what was meant. They reject nothing',
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
    duplicates: Type.Optional(
      Type.Enum([...IMPORT_DUPLICATES], {
        default: 'create',
        description:
          '`create`: an order whose external_order_id an order of the account and environment already has is created all the same, with a warning; `skip`: it is left out (counted in `skipped`)',
      }),
    ),
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
