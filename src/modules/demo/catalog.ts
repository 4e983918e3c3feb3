import type { Static } from '@sinclair/typebox';
import type { CouponBody } from '../coupons/schemas';
import type { ProductBody } from '../products/schemas';

type DemoProduct = Static<typeof ProductBody> & { slug: string; categories: string[] };

/** The demo catalogue: physical and digital goods, monthly and yearly plans, an installment plan and a trial. */
export const DEMO_CATEGORIES = [
  { name: 'Apparel', slug: 'apparel' },
  { name: 'Home', slug: 'home' },
  { name: 'Digital', slug: 'digital' },
  { name: 'Memberships', slug: 'memberships' },
];

export const DEMO_PRODUCTS: DemoProduct[] = [
  {
    title: 'Classic Cotton T-Shirt',
    slug: 'classic-cotton-t-shirt',
    status: 'publish',
    fulfillment_type: 'physical',
    description: '<p>Soft <strong>organic cotton</strong> tee with a relaxed fit.</p>',
    categories: ['apparel'],
    variations: [
      { title: 'Small', sku: 'TEE-S', price: 2500, compare_price: 3000, cost: 900, manage_stock: 1, stock_quantity: 40, position: 0 },
      { title: 'Medium', sku: 'TEE-M', price: 2500, compare_price: 3000, cost: 900, manage_stock: 1, stock_quantity: 60, position: 1 },
      { title: 'Large', sku: 'TEE-L', price: 2700, compare_price: 3200, cost: 950, manage_stock: 1, stock_quantity: 25, position: 2 },
    ],
  },
  {
    title: 'Stoneware Coffee Mug',
    slug: 'stoneware-coffee-mug',
    status: 'publish',
    fulfillment_type: 'physical',
    description: '<p>Hand-glazed 350 ml mug. Dishwasher safe.</p>',
    categories: ['home'],
    variations: [{ title: 'Default', sku: 'MUG-350', price: 1499, cost: 420, manage_stock: 1, stock_quantity: 120 }],
  },
  {
    title: 'Canvas Tote Bag',
    slug: 'canvas-tote-bag',
    status: 'publish',
    fulfillment_type: 'physical',
    description: '<p>Heavy canvas tote with an inside pocket.</p>',
    categories: ['apparel'],
    variations: [
      { title: 'Natural', sku: 'TOTE-NAT', price: 1950, compare_price: 2400, manage_stock: 1, stock_quantity: 35, position: 0 },
      { title: 'Black', sku: 'TOTE-BLK', price: 1950, compare_price: 2400, manage_stock: 1, stock_quantity: 0, position: 1 },
    ],
  },
  {
    title: 'Street Photography eBook',
    slug: 'street-photography-ebook',
    status: 'publish',
    fulfillment_type: 'digital',
    description: '<p>120 pages of technique and stories, PDF and EPUB.</p>',
    categories: ['digital'],
    variations: [{ title: 'PDF + EPUB', sku: 'EBOOK-STREET', price: 999 }],
  },
  {
    title: 'Minimal Icon Pack',
    slug: 'minimal-icon-pack',
    status: 'publish',
    fulfillment_type: 'digital',
    description: '<p>800 icons in SVG and PNG.</p>',
    categories: ['digital'],
    variations: [
      { title: 'Personal licence', sku: 'ICONS-PERSONAL', price: 2900, position: 0 },
      { title: 'Team licence', sku: 'ICONS-TEAM', price: 7900, position: 1 },
    ],
  },
  {
    title: 'Coffee Club',
    slug: 'coffee-club',
    status: 'publish',
    fulfillment_type: 'physical',
    description: '<p>A fresh bag of single-origin beans every month.</p>',
    categories: ['memberships'],
    variations: [{ title: 'Monthly bag', sku: 'COFFEE-MONTHLY', price: 1800, payment_type: 'subscription', billing_interval: 'monthly', bill_times: 0 }],
  },
  {
    title: 'Studio Software Licence',
    slug: 'studio-software-licence',
    status: 'publish',
    fulfillment_type: 'digital',
    description: '<p>All studio features with updates for a year.</p>',
    categories: ['digital', 'memberships'],
    variations: [
      { title: 'Yearly', sku: 'STUDIO-YEARLY', price: 9900, payment_type: 'subscription', billing_interval: 'yearly', bill_times: 0, signup_fee: 1500 },
    ],
  },
  {
    title: 'Design Masterclass',
    slug: 'design-masterclass',
    status: 'publish',
    fulfillment_type: 'digital',
    description: '<p>Twelve-week course, paid in three monthly installments.</p>',
    categories: ['digital'],
    variations: [{ title: '3 installments', sku: 'COURSE-3X', price: 4900, payment_type: 'subscription', billing_interval: 'monthly', bill_times: 3 }],
  },
  {
    title: 'Premium Membership',
    slug: 'premium-membership',
    status: 'publish',
    fulfillment_type: 'digital',
    description: '<p>Members-only content. Try it free for 14 days.</p>',
    categories: ['memberships'],
    variations: [
      { title: 'Monthly', sku: 'PREMIUM-MONTHLY', price: 1200, payment_type: 'subscription', billing_interval: 'monthly', trial_days: 14, bill_times: 0 },
    ],
  },
];

export const DEMO_COUPONS: Array<Static<typeof CouponBody>> = [
  { code: 'WELCOME10', title: 'Welcome: 10% off', type: 'percentage', amount: 10, min_purchase_amount: 2000, max_per_customer: 1, stackable: 1, priority: 10 },
  { code: 'FREESHIP', title: 'Free shipping', type: 'free_shipping', amount: 0, stackable: 1, priority: 20 },
];

/** Zones for the US (with West Coast states), Great Britain, Germany and the rest of the world; cents in the store currency. */
export const DEMO_SHIPPING = [
  {
    zone: { name: 'US West Coast', countries: ['US'], states: ['US:CA', 'US:OR', 'US:WA'], position: 0 },
    methods: [
      { title: 'Standard', charge_type: 'flat_rate' as const, charge_amount: 400 },
      { title: 'Free shipping', charge_type: 'free' as const, free_above: 5000 },
    ],
  },
  {
    zone: { name: 'United States', countries: ['US'], position: 1 },
    methods: [
      { title: 'Standard', charge_type: 'flat_rate' as const, charge_amount: 600 },
      { title: 'Free shipping', charge_type: 'free' as const, free_above: 7500 },
    ],
  },
  {
    zone: { name: 'United Kingdom', countries: ['GB'], position: 2 },
    methods: [{ title: 'Royal Mail', charge_type: 'flat_rate' as const, charge_amount: 900 }],
  },
  {
    zone: { name: 'Germany', countries: ['DE'], position: 3 },
    methods: [
      { title: 'DHL Paket', charge_type: 'flat_rate' as const, charge_amount: 1100 },
      { title: 'Per item', charge_type: 'per_item' as const, charge_amount: 350 },
    ],
  },
  {
    zone: { name: 'Rest of the world', is_rest_of_world: 1 as const, position: 4 },
    methods: [{ title: 'International', charge_type: 'flat_rate' as const, charge_amount: 1900 }],
  },
];

export const DEMO_CUSTOMERS = [
  {
    login: 'jane',
    email: 'jane.doe@example.com',
    first_name: 'Jane',
    last_name: 'Doe',
    address: { address_1: '1 Market Street', city: 'San Francisco', state: 'CA', postcode: '94105', country: 'US', phone: '+1 415 555 0101' },
  },
  {
    login: 'oliver',
    email: 'oliver.smith@example.co.uk',
    first_name: 'Oliver',
    last_name: 'Smith',
    address: { address_1: '10 Downing Lane', city: 'London', state: '', postcode: 'SW1A 2AA', country: 'GB', phone: '+44 20 7946 0000' },
  },
  {
    login: 'lena',
    email: 'lena.mueller@example.de',
    first_name: 'Lena',
    last_name: 'Müller',
    address: { address_1: 'Friedrichstraße 12', city: 'Berlin', state: 'BE', postcode: '10117', country: 'DE', phone: '+49 30 123456' },
  },
];
