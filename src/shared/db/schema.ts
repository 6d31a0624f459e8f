/**
 * The database as Kysely sees it: one file per table under ./tables, each with its final columns
 * (every migration applied). Conventions shared by both engines:
 * - timestamps are epoch milliseconds (bigint in PostgreSQL, integer in SQLite);
 * - booleans are 0/1 integers;
 * - money is integer minor units (cents), never binary floats;
 * - nested objects are JSON text, so both engines store and return the same bytes.
 * A new table: its own file under ./tables, a line below, and its migration.
 */
import type { AccountsTable } from './tables/accounts.js';
import type { ApiKeysTable } from './tables/api_keys.js';
import type { AutoDispatchesTable } from './tables/auto_dispatches.js';
import type { CashHandoversTable, CashResolutionsTable } from './tables/cash.js';
import type { CourierLocationsTable } from './tables/courier_locations.js';
import type { CourierSessionsTable } from './tables/courier_sessions.js';
import type { CourierSignInCodesTable } from './tables/courier_sign_in_codes.js';
import type { CouriersTable } from './tables/couriers.js';
import type { DepotsTable } from './tables/depots.js';
import type { DispatchSettingsTable } from './tables/dispatch_settings.js';
import type { EventsTable } from './tables/events.js';
import type { FilesTable } from './tables/files.js';
import type { IdempotencyKeysTable } from './tables/idempotency_keys.js';
import type { InvitationsTable } from './tables/invitations.js';
import type { JobsTable } from './tables/jobs.js';
import type { KnownDevicesTable } from './tables/known_devices.js';
import type { MessageOptOutsTable, MessageSettingsTable, MessagesTable } from './tables/messages.js';
import type { OrderImportErrorsTable } from './tables/order_import_errors.js';
import type { OrderImportOrdersTable } from './tables/order_import_orders.js';
import type { OrderImportWarningsTable } from './tables/order_import_warnings.js';
import type { OrderImportsTable } from './tables/order_imports.js';
import type { OrderTimelineTable } from './tables/order_timeline.js';
import type { OrdersTable } from './tables/orders.js';
import type { PasswordResetsTable } from './tables/password_resets.js';
import type { ProofSettingsTable } from './tables/proof_settings.js';
import type { ProofsTable } from './tables/proofs.js';
import type { RateLimitsTable } from './tables/rate_limits.js';
import type { RoutePlansTable } from './tables/route_plans.js';
import type { RouteStopsTable } from './tables/route_stops.js';
import type { RoutesTable } from './tables/routes.js';
import type { SessionsTable } from './tables/sessions.js';
import type { SettingsTable } from './tables/settings.js';
import type { SettlementLinesTable, SettlementsTable } from './tables/settlements.js';
import type { SignInAttemptsTable } from './tables/sign_in_attempts.js';
import type { UsersTable } from './tables/users.js';
import type { WebhookAttemptsTable } from './tables/webhook_attempts.js';
import type { WebhookDeliveriesTable } from './tables/webhook_deliveries.js';
import type { WebhookEndpointsTable } from './tables/webhook_endpoints.js';

export type { AccountsTable } from './tables/accounts.js';
export type { ApiKeysTable } from './tables/api_keys.js';
export type { AutoDispatchesTable, AutoDispatchOutcome } from './tables/auto_dispatches.js';
export type { CashHandoversTable, CashResolutionsTable } from './tables/cash.js';
export type { Mode, Role } from './tables/columns.js';
export type { CourierLocationsTable } from './tables/courier_locations.js';
export type { CourierSessionsTable } from './tables/courier_sessions.js';
export type { CourierSignInCodesTable } from './tables/courier_sign_in_codes.js';
export type { CouriersTable } from './tables/couriers.js';
export type { DepotsTable } from './tables/depots.js';
export type { AutoDispatchMode, DispatchSettingsTable } from './tables/dispatch_settings.js';
export type { EventsTable } from './tables/events.js';
export type { FilesTable } from './tables/files.js';
export type { IdempotencyKeysTable } from './tables/idempotency_keys.js';
export type { InvitationsTable } from './tables/invitations.js';
export type { JobStatus, JobsTable } from './tables/jobs.js';
export type { KnownDevicesTable } from './tables/known_devices.js';
export type { MessageOptOutsTable, MessageSettingsTable, MessagesTable } from './tables/messages.js';
export type { OrderImportErrorsTable } from './tables/order_import_errors.js';
export type { OrderImportOrdersTable } from './tables/order_import_orders.js';
export type { OrderImportWarningsTable } from './tables/order_import_warnings.js';
export type { OrderImportsTable } from './tables/order_imports.js';
export type { OrderTimelineTable } from './tables/order_timeline.js';
export type { OrderSource, OrderStatus, OrdersTable } from './tables/orders.js';
export type { PasswordResetsTable } from './tables/password_resets.js';
export type { ProofSettingsTable } from './tables/proof_settings.js';
export type { ProofsTable } from './tables/proofs.js';
export type { RateLimitsTable } from './tables/rate_limits.js';
export type { RoutePlanStatus, RoutePlansTable } from './tables/route_plans.js';
export type { RouteStopsTable } from './tables/route_stops.js';
export type { RoutesTable } from './tables/routes.js';
export type { SessionsTable } from './tables/sessions.js';
export type { SettingsTable } from './tables/settings.js';
export type {
  SettlementLineKind,
  SettlementLinesTable,
  SettlementStatus,
  SettlementsTable,
} from './tables/settlements.js';
export type { SignInAttemptsTable } from './tables/sign_in_attempts.js';
export type { UserRole, UserStatus, UsersTable } from './tables/users.js';
export type { WebhookAttemptsTable } from './tables/webhook_attempts.js';
export type { DeliveryKind, DeliveryStatus, WebhookDeliveriesTable } from './tables/webhook_deliveries.js';
export type { EndpointStatus, WebhookEndpointsTable } from './tables/webhook_endpoints.js';

export interface DB {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  orders: OrdersTable;
  order_timeline: OrderTimelineTable;
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limits: RateLimitsTable;
  settings: SettingsTable;
  couriers: CouriersTable;
  courier_locations: CourierLocationsTable;
  routes: RoutesTable;
  route_stops: RouteStopsTable;
  files: FilesTable;
  proofs: ProofsTable;
  proof_settings: ProofSettingsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  order_imports: OrderImportsTable;
  order_import_orders: OrderImportOrdersTable;
  order_import_errors: OrderImportErrorsTable;
  order_import_warnings: OrderImportWarningsTable;
  users: UsersTable;
  sessions: SessionsTable;
  sign_in_attempts: SignInAttemptsTable;
  known_devices: KnownDevicesTable;
  password_resets: PasswordResetsTable;
  invitations: InvitationsTable;
  courier_sign_in_codes: CourierSignInCodesTable;
  courier_sessions: CourierSessionsTable;
  depots: DepotsTable;
  route_plans: RoutePlansTable;
  jobs: JobsTable;
  cash_handovers: CashHandoversTable;
  cash_resolutions: CashResolutionsTable;
  settlements: SettlementsTable;
  settlement_lines: SettlementLinesTable;
  dispatch_settings: DispatchSettingsTable;
  auto_dispatches: AutoDispatchesTable;
  message_settings: MessageSettingsTable;
  messages: MessagesTable;
  message_opt_outs: MessageOptOutsTable;
}
