/**
 * The public catalogue of the store's hooks: every `store/...` action and filter with its arguments.
 * Extension authors import this file for the types; `hooks/HOOKS.md` is generated from it
 * (`npm run hooks:doc`). Actions fire after the database commit. Each entry has a one-line description.
 */
import type { Activity } from '../src/modules/activities/types';
import type { Coupon } from '../src/modules/coupons/types';
import type { Address, CustomerRecord, CustomerStatus } from '../src/modules/customers/types';
import type { PaymentGateway } from '../src/gateways/gateway';
import type { Label } from '../src/modules/labels/types';
import type { Order, OrderAddress } from '../src/modules/order-records/presenter';
import type { OrderTax, OrderTaxContext } from '../src/modules/orders/totals';
import type { Category, Product, Variation } from '../src/modules/products/types';
import type { Role, RoleDraft, RoleUserPage, RoleVeto } from '../src/modules/roles/types';
import type { PublicPaymentSettings } from '../src/modules/settings/payment-settings';
import type { StoreSettings } from '../src/modules/settings/types';
import type { BillingInterval, Subscription, SubscriptionStatus } from '../src/modules/subscriptions/types';
import type { PricedShippingMethod, ShippingMethod, ShippingZone } from '../src/modules/shipping/types';
import type { TaxClass, TaxClassFallback } from '../src/modules/tax-classes/types';
import type { TaxOverride } from '../src/modules/tax-overrides/types';
import type { CountryStatusChange, TaxRate } from '../src/modules/tax-rates/types';
import type { EmailData } from '../src/modules/email-notification/render/types';
import type { EmailSettings, NotificationKey, NotificationSettings, ReminderSettings } from '../src/modules/email-notification/types';

declare module '../src/host/contract' {
  interface ActionMap {
    /** A customer logged in through `POST /user/login`. */
    'store/user/logged_in': [user: HostUser];
    /** A product was created (with its variations). */
    'store/product/created': [product: Product];
    /** A product was changed; the second argument is the product before the change. */
    'store/product/updated': [product: Product, previous: Product];
    /** A product and its variations were deleted. */
    'store/product/deleted': [product: Product];
    /** A variation was added to a product. */
    'store/variation/created': [variation: Variation];
    /** A variation was changed; the second argument is the variation before the change. */
    'store/variation/updated': [variation: Variation, previous: Variation];
    /** A variation was deleted. */
    'store/variation/deleted': [variation: Variation];
    /** A managed variation's stock quantity changed. */
    'store/variation/stock_changed': [variation: Variation, previousQuantity: number];
    /** A product category was created. */
    'store/category/created': [category: Category];
    /** A product category was changed. */
    'store/category/updated': [category: Category, previous: Category];
    /** A product category was deleted. */
    'store/category/deleted': [category: Category];
    /** A coupon was created. */
    'store/coupon/created': [coupon: Coupon];
    /** A coupon was changed; the second argument is the coupon before the change. */
    'store/coupon/updated': [coupon: Coupon, previous: Coupon];
    /** A coupon was deleted. */
    'store/coupon/deleted': [coupon: Coupon];
    /** A shipping zone was created. */
    'store/shipping_zone/created': [zone: ShippingZone];
    /** A shipping zone was changed. */
    'store/shipping_zone/updated': [zone: ShippingZone, previous: ShippingZone];
    /** A shipping zone and its methods were deleted. */
    'store/shipping_zone/deleted': [zone: ShippingZone];
    /** A shipping method was created. */
    'store/shipping_method/created': [method: ShippingMethod];
    /** A shipping method was changed. */
    'store/shipping_method/updated': [method: ShippingMethod, previous: ShippingMethod];
    /** A shipping method was deleted. */
    'store/shipping_method/deleted': [method: ShippingMethod];
    /** A product-category tax override was created or updated (`previous` null on create); `convertedRateId` is the tax rate whose shipping override it replaced (`source_type: shipping`), else null. */
    'store/tax_override/saved': [override: TaxOverride, previous: TaxOverride | null, convertedRateId: number | null];
    /** A product-category tax override was deleted, on its own or with its category. */
    'store/tax_override/deleted': [override: TaxOverride];
    /** A tax rate was created. */
    'store/tax_rate/created': [rate: TaxRate];
    /** A tax rate was changed, its shipping override included; the second argument is the rate before the change. */
    'store/tax_rate/updated': [rate: TaxRate, previous: TaxRate];
    /** A tax rate was deleted. */
    'store/tax_rate/deleted': [rate: TaxRate];
    /** Tax collection was turned on or off for a country, or for every EU member (`code` `EU`). */
    'store/tax/country_status_changed': [change: CountryStatusChange];
    /** A tax class was created (a built-in `reduced`/`zero` one, or one named by its title). */
    'store/tax_class/created': [taxClass: TaxClass];
    /** A tax class was deleted; `moved` says what fell back to the Standard class in the same transaction (variations, rates, category overrides, the shipping tax class setting). */
    'store/tax_class/deleted': [taxClass: TaxClass, moved: TaxClassFallback];
    /** A label was created. */
    'store/label/created': [label: Label];
    /** A label was changed. */
    'store/label/updated': [label: Label, previous: Label];
    /** A label was deleted (and detached from everything it labelled). */
    'store/label/deleted': [label: Label];
    /** A customer was created. */
    'store/customer/created': [customer: CustomerRecord];
    /** A customer was changed; the second argument is the customer before the change. */
    'store/customer/updated': [customer: CustomerRecord, previous: CustomerRecord];
    /** A customer was deleted. */
    'store/customer/deleted': [customer: CustomerRecord];
    /** A customer's status changed. */
    'store/customer/status_changed': [customer: CustomerRecord, previousStatus: CustomerStatus];
    /** An address was added to a customer. */
    'store/customer/address_created': [address: Address];
    /** A customer address was changed; the second argument is the address before the change. */
    'store/customer/address_updated': [address: Address, previous: Address];
    /** A customer address was deleted. */
    'store/customer/address_deleted': [address: Address];
    /** An address became the customer's primary address of its type (the others of that type were demoted). */
    'store/customer/primary_address_changed': [address: Address];
    /** An order was created (admin `POST /orders`, checkout). */
    'store/order/created': [order: Order];
    /** An order was changed; the second argument is the order before the change. */
    'store/order/updated': [order: Order, previous: Order];
    /** An order's status changed (`on-hold`, `processing`, `completed`, `canceled` …). */
    'store/order/status_changed': [order: Order, previousStatus: string];
    /** An order's payment status changed (`paid`, `partially-paid`, `refunded`, `partially-refunded` …). */
    'store/order/payment_status_changed': [order: Order, previousStatus: string];
    /** An order's shipping status changed. */
    'store/order/shipping_status_changed': [order: Order, previousStatus: string];
    /** An order was marked shipped (for the shipping email). */
    'store/order/shipping_status_changed_to_shipped': [order: Order, previousStatus: string];
    /** An order was marked delivered (for the delivery email). */
    'store/order/shipping_status_changed_to_delivered': [order: Order, previousStatus: string];
    /** An order was marked unshipped again. */
    'store/order/shipping_status_changed_to_unshipped': [order: Order, previousStatus: string];
    /** An order was marked as not shippable. */
    'store/order/shipping_status_changed_to_unshippable': [order: Order, previousStatus: string];
    /** An order became paid (fires once per order, whatever the concurrency). */
    'store/order/paid': [order: Order];
    /** A checkout order will be paid outside the store (cash on delivery, bank transfer): it stays on-hold, payment pending, until an admin marks it paid. */
    'store/order/placed_offline': [order: Order];
    /** Money was given back on an order (`amount` in cents); fires with `fully_refunded` or `partially_refunded`. */
    'store/order/refunded': [order: Order, refund: { amount: number; transaction_id: number; refund_transaction_id: number }];
    /** A refund brought what was refunded up to what was paid. */
    'store/order/fully_refunded': [order: Order, refund: { amount: number; transaction_id: number; refund_transaction_id: number }];
    /** A refund gave back part of what was paid. */
    'store/order/partially_refunded': [order: Order, refund: { amount: number; transaction_id: number; refund_transaction_id: number }];
    /** An order was canceled. */
    'store/order/canceled': [order: Order, previousStatus: string];
    /** An order (with its related orders) moved to another customer. */
    'store/order/customer_changed': [order: Order, previousCustomerId: number | null];
    /** An order was deleted. */
    'store/order/deleted': [order: Order];
    /** A customer address was copied onto an order's billing or shipping address (`update-address-id`). */
    'store/order/address_updated': [order: Order, address: OrderAddress];
    /** A subscription was created (checkout: `pending` until the order's first payment). */
    'store/subscription/created': [subscription: Subscription, order: Order];
    /** A subscription started: `active` (first period paid) or `trialing`, or came back to `active` (reactivated, or by a gateway's status). */
    'store/subscription/activated': [subscription: Subscription, previousStatus: SubscriptionStatus];
    /** A renewal payment was recorded (once per gateway charge): `order` is the paid renewal order. */
    'store/subscription/renewed': [subscription: Subscription, order: Order];
    /** A subscription was canceled. */
    'store/subscription/canceled': [subscription: Subscription, previousStatus: SubscriptionStatus];
    /** A subscription will end at the end of its paid period (`expire_at`). */
    'store/subscription/expiring': [subscription: Subscription, previousStatus: SubscriptionStatus];
    /** A subscription expired (its period ended, or the expiry sweep gave up after the grace period). */
    'store/subscription/expired': [subscription: Subscription, previousStatus: SubscriptionStatus];
    /** An installment plan was paid in full (`bill_count` reached `bill_times`). */
    'store/subscription/completed': [subscription: Subscription, previousStatus: SubscriptionStatus];
    /** A subscription's payment failed at the gateway. */
    'store/subscription/failing': [subscription: Subscription, previousStatus: SubscriptionStatus];
    /** A subscription's status changed (fires with every status hook above). */
    'store/subscription/status_changed': [subscription: Subscription, previousStatus: SubscriptionStatus];
    /** A subscription changed without a status change (vendor ids, dates refreshed from the gateway); the second argument is it before. */
    'store/subscription/updated': [subscription: Subscription, previous: Subscription];
    /** A subscription was deleted with its order (`delete_orders`); the argument is it before. */
    'store/subscription/deleted': [subscription: Subscription];
    /** An activity-log entry was written. */
    'store/activity/created': [activity: Activity];
    /** The store settings were saved; the second argument is the settings before. */
    'store/settings/updated': [settings: StoreSettings, previous: StoreSettings];
    /** The payment settings were saved (secrets are never passed, only whether they are set). */
    'store/payment_settings/updated': [settings: PublicPaymentSettings];
    /** A notification's settings were saved (`PUT /email-notification/{notification}` or `enable-notification`); the third argument is them before. */
    'store/email_notification/updated': [notification: NotificationKey, settings: NotificationSettings, previous: NotificationSettings];
    /** The global email settings were saved (`POST /email-notification/save-settings`); the second argument is them before. */
    'store/email_settings/updated': [settings: EmailSettings, previous: EmailSettings];
    /** The reminder settings were saved (`/email-notification/reminders`); the second argument is them before. */
    'store/email_reminders/updated': [settings: ReminderSettings, previous: ReminderSettings];
    /** Order tax records were marked as filed (`POST /taxes`); the ids are those that were unfiled until now. */
    'store/taxes/filed': [ids: number[]];
    /** Before a store role is given to a user (`POST /roles` with `user_id`, the CLI `role assign`): call `veto.reject(message, status?)` to refuse it (answered in the role envelope, default 403). Awaited. */
    'store/role/before_assign': [userId: number, roleKey: string, veto: RoleVeto];
    /** A user was given a store role (a store role they held before was removed in the same change: see `store/role/removed`). */
    'store/role/assigned': [userId: number, roleKey: string];
    /** Before a store role is taken from a user (`DELETE /roles/{key}` with `user_id`, the CLI `role remove`, or an assignment replacing it): call `veto.reject(message, status?)` to refuse. Awaited. */
    'store/role/before_remove': [userId: number, roleKey: string, veto: RoleVeto];
    /** A store role was taken from a user (removed, replaced by another, or its role was deleted). */
    'store/role/removed': [userId: number, roleKey: string];
    /** A custom role was created (`POST /roles`). */
    'store/role/created': [role: Role];
    /** A role was edited (`POST /roles/{key}`; a built-in role keeps its key); the second argument is the role before. */
    'store/role/updated': [role: Role, previous: Role];
    /** A custom role was deleted; `holders` are the users it was taken from in the same transaction. */
    'store/role/deleted': [role: Role, holders: number[]];
  }

  interface FilterMap {
    /** The verdict of every store permission check; return false to deny, true to grant. */
    'store/user/can': [allowed: boolean, context: { user: HostUser; permission: string }];
    /** The store roles `GET /roles` lists. */
    'store/roles/available': [roles: Role[]];
    /** A role's capabilities when a user's effective capabilities are computed (each permission check). */
    'store/role/capabilities': [capabilities: string[], context: { role_key: string }];
    /** The users page of `GET /roles/user-list`. */
    'store/roles/user_list': [users: RoleUserPage, context: { search: string; user_ids: number[] }];
    /** Registration point: roles defined in code, by key (`[a-z0-9_]`, not a key taken already); they behave as built-in roles (not deletable). Applied whenever the store builds its role registry: at start-up (listen before the store registers) and when the roles change. */
    'store/roles/register': [roles: Record<string, RoleDraft>];
    /** Registration point: the capability catalogue, id → label (the store's permissions first); a role may only hold capabilities listed here. Applied with `store/roles/register`. */
    'store/roles/capabilities': [capabilities: Record<string, string>];
    /** Where the browser goes after a successful `POST /user/login`. */
    'store/user/login_redirect': [url: string, context: { user: HostUser }];
    /** The widgets of `GET /customers/get-stats/{customer}`; extensions append `{title, value, ...}` objects. */
    'store/widgets/single_customer': [widgets: unknown[], context: { customer: CustomerRecord }];
    /** HTML blocks around the orders table of `GET /customer-profile/` (`before_orders_table`, `after_orders_table`). */
    'store/customer_profile/sections_parts': [
      parts: { before_orders_table: string; after_orders_table: string },
      context: { customer_id: number | null; user_id: number },
    ];
    /** Whether the subscription vendor-id endpoints are enabled (the store setting is the default). */
    'store/subscription/vendor_id_editing_enabled': [enabled: boolean];
    /** Days past `next_billing_date` before the hourly sweep expires an unpaid subscription (default by interval: daily 1, weekly 3, monthly 7, longer 15). */
    'store/subscription/grace_period_days': [days: number, context: { interval: BillingInterval }];
    /** The payment gateways by key; extensions add theirs (see `src/gateways/gateway.ts`). */
    'store/payment_gateways': [gateways: PaymentGateway[]];
    /** The shipping methods offered for a destination, after zone matching and pricing. */
    'store/shipping/available_methods': [methods: PricedShippingMethod[], context: { country: string; state: string }];
    /** The tax of an order or a cart being priced (`POST /orders`, the cart, the checkout summary, place-order), cents: added to the total, or contained in the prices when `inclusive`. The store's tax engine answers first (priority 1: per-line `lines`, per-rate `rates`, `tax_country`), so a listener at the default priority gets its answer and may change it. `customer` is null for a guest's cart. */
    'store/order/tax': [tax: OrderTax, context: OrderTaxContext];
    /** The value of a smartcode the store does not know (`{{my.code}}` in a subject, body, footer or admin address): return the text to insert (HTML-escaped in bodies), or null to leave the code as written. `data` is the email's data, its records included. */
    'store/email/smartcode': [value: string | null, context: { code: string; data: EmailData }];
  }
}

export {};
