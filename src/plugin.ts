import type { Host } from './host/contract';
import { register as registerCommands } from './commands';
import { registerIdempotencyJobs } from './core/idempotency';
import { RateLimits } from './core/ratelimit';
import { openApiRoute } from './core/openapi/route';
import { mountRoutes, RouteRegistry, type RouteDef } from './core/routes';
import { paypalReturnRoutes } from './gateways/paypal/return-route';
import { activityRoutes } from './modules/activities/routes';
import { registerCartJobs } from './modules/cart/jobs';
import { cartRoutes } from './modules/cart/routes';
import { checkoutRoutes } from './modules/checkout/routes';
import { checkoutViewRoutes } from './modules/checkout-views/routes';
import { couponRoutes } from './modules/coupons/routes';
import { customerProfileRoutes } from './modules/customer-profile/routes';
import { addressRoutes } from './modules/customers/address-routes';
import { registerLinkOnVerify } from './modules/customers/link-on-verify';
import { customerRoutes } from './modules/customers/routes';
import { dataExportRoutes } from './modules/data-export/routes';
import { emailNotificationRoutes } from './modules/email-notification/admin/routes';
import { emailPreviewRoutes } from './modules/email-notification/render/preview-routes';
import { registerEmailReminders } from './modules/email-notification/reminders/sweep';
import { registerEmailNotifications } from './modules/email-notification/sending/register';
import { emailVerificationRoutes } from './modules/email-verification/routes';
import { labelRoutes } from './modules/labels/routes';
import { customerOrderRoutes } from './modules/orders/customer-order-routes';
import { registerOrderJobs } from './modules/checkout/expire-unpaid';
import { orderRoutes } from './modules/orders/routes';
import { registerPaymentJobs } from './modules/payments/reconcile';
import { webhookRoutes } from './modules/payments/webhook-routes';
import { productRoutes } from './modules/products/routes';
import { registerReceiptPage } from './modules/receipt/page';
import { roleCatalog } from './modules/roles/catalog';
import { roleRoutes } from './modules/roles/routes';
import { settingsRoutes } from './modules/settings/routes';
import { shippingRoutes } from './modules/shipping/routes';
import { registerSubscriptionActions } from './modules/subscriptions/actions/register';
import { subscriptionActionRoutes } from './modules/subscriptions/admin-action-routes';
import { subscriptionReadRoutes } from './modules/subscriptions/admin-read-routes';
import { registerSubscriptionJobs } from './modules/subscriptions/expiry';
import { subscriptionPortalRoutes } from './modules/subscriptions/portal-routes';
import { registerTaxEngine } from './modules/tax-engine/filter';
import { registerReportSync } from './modules/reports/sync/register';
import { reportRoutes } from './modules/reports/routes';
import { registerTaxRecords } from './modules/taxes/records';
import { taxFilingRoutes } from './modules/taxes/routes';
import { taxClassRoutes } from './modules/tax-classes/routes';
import { taxOverrideRoutes } from './modules/tax-overrides/routes';
import { taxRateRoutes } from './modules/tax-rates/routes';
import '../hooks';

/** Every route of the store, module by module. */
export const storeRoutes: RouteDef[] = [
  ...checkoutRoutes,
  ...cartRoutes,
  ...checkoutViewRoutes,
  ...webhookRoutes,
  ...paypalReturnRoutes,
  ...customerRoutes,
  ...customerOrderRoutes,
  ...addressRoutes,
  ...customerProfileRoutes,
  ...orderRoutes,
  ...subscriptionReadRoutes,
  ...subscriptionActionRoutes,
  ...subscriptionPortalRoutes,
  ...settingsRoutes,
  ...productRoutes,
  ...couponRoutes,
  ...shippingRoutes,
  ...taxFilingRoutes,
  ...reportRoutes,
  ...dataExportRoutes,
  ...taxClassRoutes,
  ...taxOverrideRoutes,
  ...taxRateRoutes,
  ...labelRoutes,
  ...roleRoutes,
  ...activityRoutes,
  ...emailVerificationRoutes,
  ...emailNotificationRoutes,
  ...emailPreviewRoutes,
];

/** The composition root: everything the store adds to the host. */
export async function register(host: Host): Promise<void> {
  const limits = new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written'));
  await registerCommands(host);
  const registry = new RouteRegistry();
  const namespace = host.manifest.namespace;
  const roles = roleCatalog(host);
  mountRoutes(host, namespace, [...storeRoutes, openApiRoute(registry, namespace)], { limits, registry, refresh: () => roles.refresh() });
  registerIdempotencyJobs(host);
  registerPaymentJobs(host);
  registerCartJobs(host);
  registerReceiptPage(host);
  registerLinkOnVerify(host, limits);
  registerOrderJobs(host);
  registerSubscriptionJobs(host);
  registerEmailNotifications(host);
  registerEmailReminders(host);
  registerSubscriptionActions(host, limits);
  registerTaxEngine(host);
  registerTaxRecords(host);
  registerReportSync(host);
}
