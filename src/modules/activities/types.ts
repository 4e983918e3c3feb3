export type ActivityObjectType =
  'product' | 'coupon' | 'customer' | 'order' | 'subscription' | 'shipping' | 'settings' | 'tax_rate' | 'category' | 'tax_override' | 'tax_class' | 'role';
export const ACTIVITY_OBJECT_TYPES: ActivityObjectType[] = [
  'product',
  'coupon',
  'customer',
  'order',
  'subscription',
  'shipping',
  'settings',
  'tax_rate',
  'category',
  'tax_override',
  'tax_class',
  'role',
];

export interface Activity {
  id: number;
  object_type: ActivityObjectType;
  object_id: number;
  title: string;
  content: string;
  status: 'info' | 'success' | 'warning' | 'error';
  user_id: number | null;
  created_by: string;
  created_at: string;
}
