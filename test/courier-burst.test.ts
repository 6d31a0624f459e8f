import { describe, expect, it } from 'vitest';
import { addToBurst, noBurst } from '../web/src/courier/burst.js';

/**
 * Which already-done moves the courier app names in one note (web/src/courier/burst.ts): those of
 * one sync, however far apart in time the outbox lists them, and never a finished sync's with the
 * next one's.
 */
type Move = { failure: { seq: number; orderId: string } };
const move = (seq: number, orderId: string): Move => ({ failure: { seq, orderId } });
const none = () => noBurst<Move>();
const orders = (b: { list: { failure: { orderId: string } }[] }) => b.list.map((e) => e.failure.orderId);

describe('one sync, one note', () => {
  it('joins a sync listed in two goes, the first while moves still wait, however long apart', () => {
    const first = addToBurst(none(), [move(1, 'ord_a')], 2);
    expect(first.open).toBe(true);
    const second = addToBurst(first, [move(2, 'ord_b'), move(3, 'ord_c')], 0);
    expect(orders(second)).toEqual(['ord_a', 'ord_b', 'ord_c']);
    expect(second.open).toBe(false);
  });

  it('starts anew once the outbox was empty: the next go is a new sync of new moves', () => {
    const over = addToBurst(none(), [move(1, 'ord_a'), move(2, 'ord_b')], 0);
    expect(orders(addToBurst(over, [move(7, 'ord_c')], 0))).toEqual(['ord_c']);
  });

  it('keeps the list, the same object, when it is read again while its moves are being cleared', () => {
    const over = addToBurst(none(), [move(1, 'ord_a'), move(2, 'ord_b'), move(3, 'ord_c')], 0);
    expect(addToBurst(over, [move(2, 'ord_b'), move(3, 'ord_c')], 0)).toBe(over);
    expect(addToBurst(over, [], 0)).toBe(over);
  });

  it('names an order once, with its latest move, when two of its moves are listed', () => {
    const first = addToBurst(none(), [move(1, 'ord_a')], 1);
    const second = addToBurst(first, [move(4, 'ord_a')], 0);
    expect(second.list).toEqual([move(4, 'ord_a')]);
  });
});
