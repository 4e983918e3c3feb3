import type { RoleDefinition } from '../host/contract';
import { ALL_PERMISSIONS, type Permission } from './permissions';

interface StoreRole extends RoleDefinition {
  capabilities: Permission[];
}

/**
 * The built-in store roles; administrators hold every permission without a role. The store's role catalogue
 * (`src/modules/roles/catalog.ts`) registers them, with their stored edits, into the host's registry.
 */
export const STORE_ROLES: Record<string, StoreRole> = {
  shop_manager: {
    title: 'Shop Manager',
    description: 'Full access to the store.',
    capabilities: ALL_PERMISSIONS,
    builtin: true,
  },
  product_manager: {
    title: 'Product Manager',
    description: 'Products and inventory.',
    capabilities: ['products/view', 'products/manage', 'products/delete', 'coupons/view', 'labels/view', 'reports/view'],
    builtin: true,
  },
  order_manager: {
    title: 'Order Manager',
    description: 'Orders and fulfillment.',
    capabilities: [
      'orders/view',
      'orders/create',
      'orders/manage',
      'orders/manage_statuses',
      'orders/can_refund',
      'orders/delete',
      'orders/export',
      'customers/view',
      'customers/manage',
      'subscriptions/view',
      'subscriptions/manage',
      'products/view',
      'coupons/view',
      'labels/view',
      'labels/manage',
      'licenses/view',
    ],
    builtin: true,
  },
  customer_service: {
    title: 'Customer Service',
    description: 'Support and order assistance.',
    capabilities: [
      'customers/view',
      'customers/manage',
      'orders/view',
      'orders/manage_statuses',
      'subscriptions/view',
      'products/view',
      'coupons/view',
      'labels/view',
      'licenses/view',
    ],
    builtin: true,
  },
};
