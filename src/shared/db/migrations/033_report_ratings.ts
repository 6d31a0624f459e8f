import type { Kysely } from 'kysely';

/**
 * Issue #22: the reports count customer ratings (`orders.feedback_rating`, 016_tracking) beside
 * the other figures, in the same pass. `orders_report` (017_money) held every column the summary
 * reads, so both engines answered from the index alone; without `feedback_rating` in it, every row
 * in the period would be read from the table again. It is rebuilt with the column last: the
 * leading columns, the summary's range (mode, due_day) and its filters, are unchanged.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('orders_report').execute();
  await db.schema
    .createIndex('orders_report')
    .on('orders')
    .columns([
      'mode',
      'due_day',
      'account_id',
      'courier_id',
      'status',
      'attempts',
      'on_time',
      'created_at',
      'delivered_at',
      'feedback_rating',
    ])
    .execute();
}
