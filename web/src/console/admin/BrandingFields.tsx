import { useId } from 'react';
import { type Schemas, unwrap } from '../../shared/api';
import type { useSession } from '../session';
import { Field } from '../ui';

type Branding = Schemas['Account']['branding'];

export interface BrandingDraft {
  brandName: string;
  brandColor: string;
  logo: File | null;
}

export function brandingDraftOf(b?: Branding): BrandingDraft {
  return { brandName: b?.display_name ?? '', brandColor: b?.color ?? '', logo: null };
}

/**
 * The account's branding as a PATCH body: an empty field is null (Ruta's default), a chosen logo
 * is uploaded first (`purpose: logo`) and named by its file id.
 */
export async function brandingBody(
  client: ReturnType<typeof useSession>['client'],
  d: BrandingDraft,
): Promise<Partial<Branding>> {
  const body: Partial<Branding> = {
    display_name: d.brandName.trim() || null,
    color: d.brandColor.trim() || null,
  };
  if (d.logo) {
    const logo = d.logo;
    const file = await unwrap(
      client.POST('/v1/files', {
        params: { query: { purpose: 'logo' } },
        body: logo as never,
        bodySerializer: () => logo,
        headers: { 'Content-Type': logo.type },
      }),
    );
    body.logo_file = file.id;
  }
  return body;
}

/** How the customer's tracking page shows the merchant: name, colour and logo (DESIGN §15). */
export function BrandingFields({
  d,
  set,
  errors,
}: {
  d: BrandingDraft;
  set: (d: BrandingDraft) => void;
  errors: Record<string, string>;
}) {
  const logoId = useId();
  return (
    <fieldset>
      <legend>Tracking page brand</legend>
      <div className="grid-form">
        <Field
          label="Display name"
          name="branding.display_name"
          value={d.brandName}
          onChange={(v) => set({ ...d, brandName: v })}
          errors={errors}
          placeholder="the account's name"
        />
        <Field
          label="Brand colour (#rrggbb)"
          name="branding.color"
          value={d.brandColor}
          onChange={(v) => set({ ...d, brandColor: v })}
          errors={errors}
          placeholder="#0f766e"
        />
        <div className="field">
          <label htmlFor={logoId}>Logo (PNG, JPEG or WebP)</label>
          <input
            id={logoId}
            name="branding.logo_file"
            type="file"
            accept="image/png,image/jpeg,image/webp"
            onChange={(e) => set({ ...d, logo: e.target.files?.[0] ?? null })}
          />
        </div>
      </div>
    </fieldset>
  );
}
