import { type Static, Type } from 'typebox';
import { PIN_STATES, PROOF_LEVELS } from '../../shared/db/tables/proof_settings.js';

const Level = (what: string) =>
  Type.Enum([...PROOF_LEVELS], {
    description: `${what}: \`required\` on every delivery, \`optional\` when the order asks for it (the courier app offers it), \`off\` unless the order asks for it`,
  });

const LEVEL_FIELDS = {
  signature: Level('The receiver signs on the courier\u2019s screen'),
  photo: Level('A photo of the parcel at the door'),
  pin: Level(
    'The 4-digit delivery PIN the customer receives in the out_for_delivery message (`optional` is as `off`: a PIN is only made when required)',
  ),
  id_check: Level('The receiver\u2019s ID document: its type and number'),
  age_check: Level('The receiver is 18 or older, read off an ID document (which is then recorded too)'),
};

export const ProofSettings = Type.Object(
  {
    object: Type.Literal('proof_settings'),
    account: Type.Union([Type.String(), Type.Null()], {
      description: 'The merchant account; null for the carrier\u2019s defaults',
    }),
    inherited: Type.Boolean({ description: 'True while the account has none of its own and uses the carrier\u2019s' }),
    ...LEVEL_FIELDS,
  },
  { $id: 'ProofSettings' },
);

export const ProofSettingsUpdate = Type.Object(
  {
    signature: Type.Optional(LEVEL_FIELDS.signature),
    photo: Type.Optional(LEVEL_FIELDS.photo),
    pin: Type.Optional(LEVEL_FIELDS.pin),
    id_check: Type.Optional(LEVEL_FIELDS.id_check),
    age_check: Type.Optional(LEVEL_FIELDS.age_check),
  },
  { additionalProperties: false, $id: 'ProofSettingsUpdate' },
);
export type ProofSettingsUpdate = Static<typeof ProofSettingsUpdate>;

/** An order's levels as the courier app reads them: what to ask for, and what to offer. */
export const ProofRequirements = Type.Object(LEVEL_FIELDS, {
  $id: 'ProofRequirements',
  description:
    'What delivering this order asks for, fixed at creation: the account\u2019s proof settings raised by the order\u2019s own requires_* flags',
});

export const PinStatus = Type.Union(
  [
    Type.Object({
      state: Type.Enum([...PIN_STATES], {
        description:
          '`set`: waiting for the customer\u2019s PIN; `locked`: five wrong ones, a dispatcher must override; `overridden`: deliverable without it',
      }),
      attempts: Type.Integer({ description: 'Wrong PINs given so far' }),
    }),
    Type.Null(),
  ],
  { description: 'The delivery PIN\u2019s state (never the PIN); null when the order has none' },
);

export const PinOverrideBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 500 }) },
  { additionalProperties: false, $id: 'PinOverrideParams' },
);
export type PinOverrideBody = Static<typeof PinOverrideBody>;
