import { ImportList } from './imports/ImportList';
import { ImportPage } from './imports/ImportPage';

/** Bulk import for merchant users (DESIGN §11): `#/imports` and `#/imports/imp_…`. */
export default function Imports({ id }: { id?: string }) {
  return id ? <ImportPage key={id} id={id} /> : <ImportList />;
}
