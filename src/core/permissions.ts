/**
 * The permission catalogue: every permission id either spec document names, plus those the store's own
 * admin API (products, coupons, labels, …) needs. A route may only name ids from this list.
 */
export const PERMISSIONS = {
  'store/settings': 'Read store settings',
  'store/sensitive': 'Change sensitive store settings (payment keys, email, tax)',
  manage_store_settings: 'Manage roles and store access',
  'products/view': 'View products',
  'products/manage': 'Create and edit products and inventory',
  'products/delete': 'Delete products',
  'customers/view': 'View customers',
  'customers/manage': 'Create and edit customers',
  'customers/delete': 'Delete customers',
  'customers/export': 'Export customers',
  'orders/view': 'View orders',
  'orders/create': 'Create orders',
  'orders/manage': 'Edit orders',
  'orders/manage_statuses': 'Change order, payment and shipping statuses',
  'orders/can_refund': 'Refund orders',
  'orders/export': 'Export orders',
  'orders/delete': 'Delete orders',
  'subscriptions/view': 'View subscriptions',
  'subscriptions/manage': 'Manage subscriptions',
  'subscriptions/delete': 'Delete subscriptions',
  'subscriptions/export': 'Export subscriptions',
  'licenses/view': 'View licenses',
  'licenses/manage': 'Manage licenses',
  'licenses/delete': 'Delete licenses',
  'licenses/export': 'Export licenses',
  'coupons/view': 'View coupons',
  'coupons/manage': 'Create and edit coupons',
  'coupons/delete': 'Delete coupons',
  'labels/view': 'View labels',
  'labels/manage': 'Create and edit labels',
  'labels/delete': 'Delete labels',
  'reports/view': 'View reports',
} as const;

export type Permission = keyof typeof PERMISSIONS;

export const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as Permission[];

export function isPermission(value: string): value is Permission {
  return Object.prototype.hasOwnProperty.call(PERMISSIONS, value);
}
