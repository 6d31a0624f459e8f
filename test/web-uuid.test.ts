import { afterEach, describe, expect, it } from 'vitest';
import { newUuid } from '../web/src/shared/uuid.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The web apps' UUIDs (Idempotency-Keys, the courier's queued moves) where the page is not a secure
 * context: a browser then has crypto.getRandomValues but no crypto.randomUUID. The courier app over
 * plain http is driven for real in courier-plain-http.browser.test.ts.
 */
describe('newUuid', () => {
  afterEach(() => {
    // Own property shadows the prototype's; deleting it gives randomUUID back.
    delete (crypto as { randomUUID?: unknown }).randomUUID;
  });

  it('is a version 4 UUID with crypto.randomUUID', () => {
    expect(newUuid()).toMatch(V4);
  });

  it('is a version 4 UUID, each one new, without crypto.randomUUID', () => {
    Object.defineProperty(crypto, 'randomUUID', { value: undefined, configurable: true });
    expect(typeof crypto.randomUUID).toBe('undefined');
    const ids = Array.from({ length: 2000 }, newUuid);
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
