import { type Static, Type } from 'typebox';

export const GeocodeQuery = Type.Object(
  {
    q: Type.String({ minLength: 3, maxLength: 300, description: 'The address as a person types it' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 5 })),
  },
  { additionalProperties: false },
);
export type GeocodeQuery = Static<typeof GeocodeQuery>;

export const GeocodeResult = Type.Object(
  {
    label: Type.String({ description: 'The geocoder\u2019s name for the place' }),
    lat: Type.Number(),
    lng: Type.Number(),
    quality: Type.Union([Type.Literal('address'), Type.Literal('street'), Type.Literal('area')], {
      description:
        '`address`: a house or building; `street`: the street only; `area`: a neighbourhood, district or city',
    }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
  },
  { $id: 'GeocodeResult' },
);

export const GeocodeList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(GeocodeResult) },
  { $id: 'GeocodeList' },
);
export type GeocodeList = Static<typeof GeocodeList>;
