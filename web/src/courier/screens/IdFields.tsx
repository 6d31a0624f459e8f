import type { Order } from '../../shared/api';

const ID_TYPES: [string, string][] = [
  ['national_id', 'National ID (DNI, CPF, INE…)'],
  ['foreign_id', 'Foreign resident ID'],
  ['passport', 'Passport'],
  ['driver_license', 'Driver license'],
  ['other', 'Other'],
];

/**
 * Who received the parcel, on paper: the ID document's type and number and the 18+ check when the
 * order's proof asks for them (required or offered), else a document number the courier may add.
 */
export function IdFields({
  askId,
  idRequired,
  need,
  form,
  onChange,
}: {
  askId: boolean;
  idRequired: boolean;
  need: Order['proof_requirements'];
  form: Record<string, string>;
  onChange: (field: string, value: string) => void;
}) {
  return askId ? (
    <fieldset>
      <legend>ID document{idRequired ? ' (required)' : ''}</legend>
      <label>
        Type
        <select name="id_type" value={form.id_type ?? ''} onChange={(e) => onChange('id_type', e.target.value)}>
          <option value="">Choose…</option>
          {ID_TYPES.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Number
        <input
          name="id_number"
          maxLength={40}
          value={form.id_number ?? ''}
          onChange={(e) => onChange('id_number', e.target.value)}
        />
      </label>
      {need.age_check !== 'off' && (
        <label className="check">
          <input
            type="checkbox"
            name="age_verified"
            checked={form.age === 'yes'}
            onChange={(e) => onChange('age', e.target.checked ? 'yes' : '')}
          />
          The document shows the receiver is 18 or older{need.age_check === 'required' ? ' (required)' : ''}
        </label>
      )}
    </fieldset>
  ) : (
    <label>
      Document number
      <input
        name="receiver_document"
        value={form.receiver_document ?? ''}
        onChange={(e) => onChange('receiver_document', e.target.value)}
      />
    </label>
  );
}
