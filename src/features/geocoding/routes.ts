import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { geocoderConfigured, searchAddress } from './client.js';
import { GeocodeList, GeocodeQuery } from './schemas.js';

/**
 * Address search for the console's address fields (autocomplete): any key or signed-in user, not a
 * courier's phone. The geocoder sees the text only, never who asked.
 */
export function geocodingRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/geocode',
    {
      schema: {
        tags: ['Geocoding'],
        operationId: 'geocodeAddress',
        summary: 'Search an address (RUTA_GEOCODER_URL): up to `limit` places, best first',
        description:
          'For address fields that suggest places as one types. Answers are cached; the public Nominatim instance is asked at most once a second. 503 `service_unavailable` when no geocoder is configured or it cannot be reached.',
        querystring: GeocodeQuery,
        response: { 200: GeocodeList, ...errorResponses(401, 403, 422, 503) },
      },
    },
    async (req): Promise<GeocodeList> => {
      scopeOf(req, { courier: false });
      if (!geocoderConfigured(ctx)) {
        throw new ApiError(
          'service_unavailable',
          'No geocoder is configured: set RUTA_GEOCODER_URL (docs/geocoding.md).',
        );
      }
      const text = req.query.q.trim();
      if (text.length < 3) throw new ApiError('parameter_invalid', 'Invalid q: at least 3 characters.', 'q');
      try {
        const data = await searchAddress(ctx, text, req.query.limit ?? 5);
        return { object: 'list', data };
      } catch (err) {
        ctx.logger.warn({ err: (err as Error).message }, 'geocoder failed');
        throw new ApiError(
          'service_unavailable',
          'The geocoder could not be reached; try again, or place the point on the map.',
        );
      }
    },
  );
}
