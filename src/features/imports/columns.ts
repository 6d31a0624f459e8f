/**
 * The spreadsheet's columns: canonical names (DESIGN §11), their aliases, and where each one goes
 * in the POST /v1/orders body. Header cells are compared after `normalize`, so `Customer Name`,
 * `customer.name`, `CUSTOMER_NAME` and `customer-name` are one column.
 */

import type { DateFormat } from './schemas.js';

/** Where a column's value goes: an order field (`customer.phone`) or a field of the row's item. */
export interface Target {
  canonical: string;
  /** Path in the order body; item fields are relative to the item (`quantity`). */
  path: string[];
  item: boolean;
  kind: 'string' | 'phone' | 'number' | 'integer' | 'boolean' | 'date' | 'time' | 'list';
}

const F = (canonical: string, path: string, kind: Target['kind'], aliases: string[] = []) => ({
  target: { canonical, path: path.split('.'), item: canonical.startsWith('item_'), kind },
  aliases,
});

/** The canonical columns, in template order. The API's own path is always an alias too. */
const FIELDS = [
  F('external_order_id', 'external_order_id', 'string', [
    'order_id',
    'order',
    'pedido',
    'order_number',
    'reference_id',
  ]),
  F('customer_name', 'customer.name', 'string', ['name', 'customer', 'nombre', 'cliente', 'recipient', 'destinatario']),
  F('customer_document_type', 'customer.document_type', 'string', ['document_type', 'tipo_documento']),
  F('customer_document_number', 'customer.document_number', 'string', [
    'document_number',
    'document',
    'documento',
    'dni',
    'ruc',
  ]),
  F('customer_email', 'customer.email', 'string', ['email', 'e_mail', 'correo', 'mail']),
  F('customer_phone', 'customer.phone', 'phone', [
    'phone',
    'mobile',
    'telephone',
    'telefono',
    'teléfono',
    'celular',
    'movil',
    'móvil',
  ]),
  F('customer_whatsapp', 'customer.whatsapp', 'phone', ['whatsapp']),
  F('address', 'delivery_address.address', 'string', [
    'street',
    'direccion',
    'dirección',
    'delivery_address',
    'address_line',
    'domicilio',
  ]),
  F('address_label', 'delivery_address.label', 'string', ['label', 'etiqueta']),
  F('district', 'delivery_address.district', 'string', ['distrito', 'neighborhood', 'barrio', 'comuna']),
  F('city', 'delivery_address.city', 'string', ['ciudad', 'town']),
  F('department', 'delivery_address.department', 'string', [
    'departamento',
    'state',
    'province',
    'provincia',
    'region',
    'región',
  ]),
  F('lat', 'delivery_address.lat', 'number', ['latitude', 'latitud']),
  F('lng', 'delivery_address.lng', 'number', ['lon', 'long', 'longitude', 'longitud']),
  F('reference', 'delivery_address.reference', 'string', ['referencia', 'landmark']),
  F('access_notes', 'delivery_address.access_notes', 'string', ['access', 'acceso', 'instrucciones_acceso']),
  // A pickup-and-delivery pair (DESIGN §16): where the courier collects the parcel, when that is not
  // a depot. Blank pickup columns leave the order a plain delivery.
  F('pickup_address', 'pickup_address.address', 'string', [
    'pickup',
    'recojo',
    'direccion_recojo',
    'dirección_recojo',
    'recogida',
    'direccion_recogida',
    'dirección_recogida',
    'coleta',
    'endereco_coleta',
    'endereço_coleta',
  ]),
  F('pickup_label', 'pickup_address.label', 'string', ['etiqueta_recojo']),
  F('pickup_district', 'pickup_address.district', 'string', ['distrito_recojo', 'barrio_recogida', 'bairro_coleta']),
  F('pickup_city', 'pickup_address.city', 'string', ['ciudad_recojo', 'ciudad_recogida', 'cidade_coleta']),
  F('pickup_department', 'pickup_address.department', 'string', ['departamento_recojo']),
  F('pickup_lat', 'pickup_address.lat', 'number', ['pickup_latitude', 'latitud_recojo']),
  F('pickup_lng', 'pickup_address.lng', 'number', ['pickup_lon', 'pickup_longitude', 'longitud_recojo']),
  F('pickup_reference', 'pickup_address.reference', 'string', ['referencia_recojo']),
  F('pickup_access_notes', 'pickup_address.access_notes', 'string', ['acceso_recojo']),
  F('requested_date', 'requested_date', 'date', ['date', 'delivery_date', 'fecha', 'fecha_entrega']),
  F('time_window_start', 'time_window.start', 'time', ['window_start', 'from', 'desde', 'hora_desde']),
  F('time_window_end', 'time_window.end', 'time', ['window_end', 'to', 'hasta', 'hora_hasta']),
  F('requirements', 'requirements', 'list', ['skills', 'requisitos', 'requerimientos', 'requisitos_vehiculo']),
  F('priority', 'priority', 'integer', ['prioridad']),
  F('is_urgent', 'is_urgent', 'boolean', ['urgent', 'urgente']),
  F('requires_signature', 'requires_signature', 'boolean', ['signature', 'firma']),
  F('requires_photo', 'requires_photo', 'boolean', ['photo', 'foto']),
  F('requires_pin', 'requires_pin', 'boolean', ['pin', 'clave_entrega']),
  F('requires_id_check', 'requires_id_check', 'boolean', ['id_check', 'verificar_documento']),
  F('requires_age_check', 'requires_age_check', 'boolean', ['age_check', 'mayor_de_edad', '18+']),
  F('cash_on_delivery', 'cash_on_delivery', 'number', ['cod', 'cash', 'contra_entrega', 'cobro', 'monto_cobrar']),
  F('customer_notes', 'customer_notes', 'string', ['notes', 'notas', 'observaciones', 'comments']),
  F('item_sku', 'sku', 'string', ['sku', 'items.sku', 'codigo', 'código']),
  F('item_description', 'description', 'string', [
    'description',
    'item',
    'items.description',
    'product',
    'producto',
    'descripcion',
    'descripción',
  ]),
  F('item_quantity', 'quantity', 'integer', ['quantity', 'qty', 'items.quantity', 'cantidad']),
  F('item_weight_kg', 'weight_kg', 'number', ['weight', 'weight_kg', 'items.weight_kg', 'peso', 'peso_kg']),
  F('item_declared_value', 'declared_value', 'number', [
    'declared_value',
    'value',
    'items.declared_value',
    'valor',
    'valor_declarado',
  ]),
];

/** The canonical names, in template order. */
export const CANONICAL_COLUMNS: readonly string[] = FIELDS.map((f) => f.target.canonical);

/** `Customer Name`, `customer.name`, `CUSTOMER_NAME`, ` customer-name ` → `customername`. */
export function normalize(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/[\s._-]+/g, '');
}

function buildIndex(): Map<string, Target> {
  const index = new Map<string, Target>();
  for (const { target, aliases } of FIELDS) {
    const api = target.item ? `items.${target.path.join('.')}` : target.path.join('.');
    for (const name of [target.canonical, api, ...aliases]) index.set(normalize(name), target);
  }
  return index;
}

/** Built once: a read-only table. */
const INDEX: ReadonlyMap<string, Target> = buildIndex();

/** A header cell resolved: a column, a metadata key, or nothing (unknown). */
export type Resolved =
  | { kind: 'field'; target: Target; dateFormat?: DateFormat }
  | { kind: 'metadata'; key: string }
  | { kind: 'empty' }
  | { kind: 'bad_date_format'; target: Target };

/** Letters a date format is written with: d/j (jour)/t (Tag) day, m month, yyyy/aaaa (año, ano)/jjjj (Jahr) year. */
const DAY = /^(d|dd|j|jj|t|tt)$/;
const MONTH = /^(m|mm)$/;
const YEAR = /^(yyyy|aaaa|jjjj)$/;

/**
 * The date order a header names after the column, as `DD/MM/YYYY`, `dd/mm/aaaa`, `MM-DD-YYYY`,
 * `TT.MM.JJJJ` or `YYYY-MM-DD` (ISO), optionally followed by `hh:mm`; any case, any spaces.
 */
export function parseDateFormat(text: string): DateFormat | undefined {
  const m = /^([a-z]+)([/.-])([a-z]+)\2([a-z]+?)(?:h{1,2}:mm(?::ss)?)?$/.exec(text.toLowerCase().replace(/\s+/g, ''));
  if (!m) return undefined;
  const [a, sep, b, c] = [m[1] as string, m[2], m[3] as string, m[4] as string];
  if (DAY.test(a) && MONTH.test(b) && YEAR.test(c)) return 'DMY';
  if (MONTH.test(a) && DAY.test(b) && YEAR.test(c)) return 'MDY';
  // ISO is what the reader calls YYYY-MM-DD; YYYY/MM/DD is not a form it reads.
  if (YEAR.test(a) && MONTH.test(b) && DAY.test(c) && sep === '-') return 'ISO';
  return undefined;
}

export function resolveHeader(header: string): Resolved | undefined {
  // Blank headers, and the `error` column failed_rows.csv adds, so a fixed file uploads as it is.
  if (header.trim() === '' || normalize(header) === 'error') return { kind: 'empty' };
  // metadata.<key> keeps the key as written: metadata keys are the merchant's own.
  const meta = /^\s*metadata[._ ](.+)$/i.exec(header);
  if (meta?.[1] && meta[1].trim() !== '') return { kind: 'metadata', key: meta[1].trim() };
  const target = INDEX.get(normalize(header));
  if (target) return { kind: 'field', target };
  // A date column may name its format in brackets: `requested_date (DD/MM/YYYY)`, `Fecha [dd/mm/aaaa]`.
  const named = /^(.*?)\s*(?:\(([^()]*)\)|\[([^[\]]*)\])\s*$/.exec(header);
  const base = named?.[1] ? INDEX.get(normalize(named[1])) : undefined;
  if (!named || base?.kind !== 'date') return undefined;
  const dateFormat = parseDateFormat(named[2] ?? named[3] ?? '');
  return dateFormat ? { kind: 'field', target: base, dateFormat } : { kind: 'bad_date_format', target: base };
}

/** Every alias, for the docs' and the error message's benefit. */
export function aliasesOf(canonical: string): string[] {
  return FIELDS.find((f) => f.target.canonical === canonical)?.aliases ?? [];
}
