// Who and where an order names: the customer, the delivery and pickup addresses, and how an address
// was located (the geocoder's answer, the phone's position at an attempt). Split from schemas.ts,
// which keeps the order itself and imports these. The text builders (Str, ReqStr) live here too and
// schemas.ts imports them: this file imports no other orders schema, so there is no import cycle.
import { type Static, Type } from 'typebox';
import { Nullable } from '../../shared/params.js';

export const Str = (opts: { maxLength?: number; description?: string } = {}) =>
  Type.String({ maxLength: 500, ...opts });
export const ReqStr = (opts: { maxLength?: number; description?: string } = {}) =>
  Type.String({ minLength: 1, maxLength: 500, ...opts });
const Phone = Type.String({
  pattern: '^\\+[0-9]{8,15}$',
  description: 'E.164 phone number: + followed by 8 to 15 digits, e.g. +51987654321',
});

export const Customer = Type.Object(
  {
    name: ReqStr({ description: 'End customer name' }),
    document_type: Type.Optional(Str()),
    document_number: Type.Optional(Str()),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 500 })),
    phone: Type.Optional(Phone),
    whatsapp: Type.Optional(Phone),
    locale: Type.Optional(
      Type.Union([Type.Literal('es'), Type.Literal('en'), Type.Literal('pt')], {
        description: "The language of the customer's messages; the account's default when absent",
      }),
    ),
  },
  { additionalProperties: false, $id: 'Customer' },
);

export const Address = Type.Object(
  {
    label: Type.Optional(Str()),
    address: ReqStr({ description: 'Free-text address' }),
    district: Type.Optional(Str()),
    city: Type.Optional(Str()),
    department: Type.Optional(Str()),
    lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
    reference: Type.Optional(Str()),
    access_notes: Type.Optional(Str()),
  },
  { additionalProperties: false, $id: 'Address' },
);

/** Metres within which a pickup address is taken to be a depot (the parcel leaves from it as usual). */
export const PICKUP_AT_DEPOT_M = 100;

/**
 * Where a pickup-and-delivery order is collected (DESIGN §16): the courier drives there first and
 * delivers on the same route. Located like the delivery address (coordinates, else the geocoder).
 */
export const PICKUP_DESCRIPTION =
  'Where the courier collects the parcel before delivering it (a pickup-and-delivery pair: pickup first, same courier). An address object like delivery_address, with lat/lng or located by the geocoder; one within 100 m of a depot is that depot (`depot`), and the order is planned like any other. Absent or null: the parcel leaves from the depot';

/** The Address fields under an id of their own (one schema may not hold two copies of `Address`). */
export const PickupAddressCreate = Type.Object(Address.properties, {
  additionalProperties: false,
  $id: 'PickupAddressCreate',
});

export const PickupAddress = Type.Object(
  {
    ...Address.properties,
    depot: Nullable(
      Type.String({
        description: 'The depot this pickup address is (within 100 m of it); null: a pickup stop of its own',
      }),
    ),
  },
  { $id: 'PickupAddress' },
);

/** How the geocoder located an address sent without coordinates (docs/geocoding.md). */
export const Geocode = Type.Object(
  {
    quality: Type.Union([Type.Literal('address'), Type.Literal('street'), Type.Literal('area'), Type.Literal('none')], {
      description:
        '`address`: a house or building; `street`: the street, not the number; `area`: only a neighbourhood, district or city; `none`: not found, or the geocoder could not be reached (the order has no coordinates)',
    }),
    confidence: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    label: Nullable(Type.String({ description: 'The geocoder\u2019s name for the place it matched' })),
    needs_review: Type.Boolean({
      description: 'True when a person should check the point on a map: an area or no match, or a low confidence',
    }),
  },
  { $id: 'Geocode' },
);
export type Geocode = Static<typeof Geocode>;

/** Where the phone was at the order's last attempt (docs/api.md "Positions of moves"). */
export const AttemptPosition = Type.Object(
  {
    lat: Type.Number(),
    lng: Type.Number(),
    accuracy_m: Nullable(Type.Number({ description: 'The fix\u2019s accuracy radius, metres; null when not sent' })),
    recorded_at: Type.String({ format: 'date-time', description: 'When the fix was taken (the courier\u2019s tap)' }),
    distance_from_address_m: Nullable(
      Type.Integer({ description: 'Metres from the delivery address; null when the address has no coordinates' }),
    ),
    far_from_address: Nullable(
      Type.Boolean({
        description:
          'Farther than RUTA_FAR_FROM_ADDRESS_M even allowing for the accuracy (distance \u2212 accuracy_m > threshold); null when the distance is unknown',
      }),
    ),
  },
  { $id: 'AttemptPosition' },
);
