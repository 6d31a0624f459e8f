import { useEffect, useId, useState } from 'react';
import { type Schemas, unwrap } from '../shared/api';
import { useSession } from './session';

type Place = Schemas['GeocodeResult'];

const QUALITY: Record<Place['quality'], string> = {
  address: 'house',
  street: 'street only',
  area: 'area only: check on the map',
};

/**
 * Places the geocoder (GET /v1/geocode, RUTA_GEOCODER_URL) finds for the address being typed,
 * each a button that fills in its coordinates. Asked 400 ms after the last keystroke, from 3
 * characters on. Without a geocoder (503) it shows nothing: the coordinate fields still work.
 */
export function AddressSuggest({
  text,
  onPick,
  picked,
}: {
  /** The address as typed, with district and city when the form has them. */
  text: string;
  onPick: (p: { lat: number; lng: number; label: string }) => void;
  /** True once the form has coordinates: then nothing is suggested. */
  picked: boolean;
}) {
  const { client } = useSession();
  const [places, setPlaces] = useState<Place[]>([]);
  const [chosen, setChosen] = useState('');
  const id = useId();
  useEffect(() => {
    const q = text.trim();
    if (picked || q.length < 3) {
      setPlaces([]);
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      unwrap(client.GET('/v1/geocode', { params: { query: { q, limit: 5 } } })).then(
        (r) => !stale && setPlaces(r.data),
        () => !stale && setPlaces([]),
      );
    }, 400);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [text, picked, client]);

  if (picked && chosen) {
    return (
      <p className="muted address-picked" aria-live="polite">
        Located: {chosen}
      </p>
    );
  }
  if (places.length === 0) return null;
  return (
    <section className="address-suggest" aria-labelledby={`${id}-t`}>
      <p id={`${id}-t`} className="muted">
        Places found for this address: pick one to fill in its coordinates.
      </p>
      <ul className="place-list">
        {places.map((p) => (
          <li key={`${p.lat},${p.lng}`}>
            <button
              type="button"
              onClick={() => {
                setChosen(p.label);
                setPlaces([]);
                onPick(p);
              }}
            >
              {p.label} <span className="muted">({QUALITY[p.quality]})</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
