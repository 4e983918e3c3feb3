import crypto from 'node:crypto';
import { transaction, type Ctx } from '../../core/context';
import { toTimestamp } from '../../core/time';
import { createCoupon } from '../coupons/service';
import { createCategory } from '../products/categories';
import { createProduct } from '../products/service';
import { savePaymentSettings } from '../settings/payment-settings';
import { saveStoreSettings } from '../settings/store-settings';
import { createMethod, createZone } from '../shipping/service';
import { DEMO_CATEGORIES, DEMO_COUPONS, DEMO_CUSTOMERS, DEMO_PRODUCTS, DEMO_SHIPPING } from './catalog';

export const DEMO_CUSTOMER_PASSWORD = 'demo-customer-password';

export interface SeedReport {
  categories: number;
  products: number;
  coupons: number;
  shipping_zones: number;
  shipping_methods: number;
  customers: number;
}

async function exists(ctx: Ctx, table: string, where: Record<string, unknown>): Promise<boolean> {
  return Boolean(await ctx.db(table).where(where).first());
}

async function seedCustomer(ctx: Ctx, person: (typeof DEMO_CUSTOMERS)[number]): Promise<boolean> {
  if (await exists(ctx, 'store_customers', { email: person.email })) return false;
  const user =
    (await ctx.host.users.findByEmail(person.email)) ??
    (await ctx.host.users.create({
      login: person.login,
      email: person.email,
      password: DEMO_CUSTOMER_PASSWORD,
      first_name: person.first_name,
      last_name: person.last_name,
      roles: ['customer'],
    }));
  const now = toTimestamp(ctx.clock.now());
  const name = `${person.first_name} ${person.last_name}`;
  await transaction(ctx, async (trx) => {
    const [customerId] = await trx('store_customers').insert({
      user_id: user.id,
      email: person.email,
      first_name: person.first_name,
      last_name: person.last_name,
      status: 'active',
      purchase_value: '{}',
      uuid: crypto.randomUUID(),
      country: person.address.country,
      city: person.address.city,
      state: person.address.state,
      postcode: person.address.postcode,
      notes: '',
      created_at: now,
      updated_at: now,
    });
    await trx('store_customer_addresses').insert(
      (['billing', 'shipping'] as const).map((type) => ({
        customer_id: Number(customerId),
        type,
        is_primary: 1,
        primary_slot: type,
        status: 'active',
        label: 'Home',
        name,
        email: person.email,
        meta: '{}',
        ...person.address,
        created_at: now,
        updated_at: now,
      })),
    );
  });
  return true;
}

/**
 * A small realistic store. Every record is looked up by its natural key first (slug, code, zone name, email),
 * so running the seeder again adds only what is missing and never duplicates.
 */
export async function seedDemo(ctx: Ctx): Promise<SeedReport> {
  const report: SeedReport = { categories: 0, products: 0, coupons: 0, shipping_zones: 0, shipping_methods: 0, customers: 0 };
  if (!(await ctx.host.options.get('store_settings'))) {
    await saveStoreSettings(ctx, {
      store_name: 'Demo Store',
      store_address_1: '500 Howard Street',
      store_city: 'San Francisco',
      store_state: 'CA',
      store_postcode: '94105',
      store_country: 'US',
      currency: 'USD',
    });
  }
  if (!(await ctx.host.options.get('payment_settings'))) {
    await savePaymentSettings(ctx, {
      gateways: { cod: { enabled: true }, bank_transfer: { enabled: true, instructions: 'IBAN DE00 0000 0000 0000 0000 00' } },
    });
  }

  const categoryIds = new Map<string, number>();
  for (const category of DEMO_CATEGORIES) {
    const found = (await ctx.db('store_product_categories').where({ slug: category.slug }).first('id')) as { id: number } | undefined;
    if (!found) report.categories += 1;
    categoryIds.set(category.slug, found ? Number(found.id) : (await createCategory(ctx, category)).id);
  }
  for (const { categories, ...product } of DEMO_PRODUCTS) {
    if (await exists(ctx, 'store_products', { slug: product.slug })) continue;
    await createProduct(ctx, { ...product, category_ids: categories.map((slug) => categoryIds.get(slug)!) });
    report.products += 1;
  }
  for (const coupon of DEMO_COUPONS) {
    if (await exists(ctx, 'store_coupons', { code_key: coupon.code.toLowerCase() })) continue;
    await createCoupon(ctx, coupon);
    report.coupons += 1;
  }
  for (const { zone, methods } of DEMO_SHIPPING) {
    const found = (await ctx.db('store_shipping_zones').where({ name: zone.name }).first('id')) as { id: number } | undefined;
    const zoneId = found ? Number(found.id) : (await createZone(ctx, zone)).id;
    if (!found) report.shipping_zones += 1;
    for (const method of methods) {
      if (await exists(ctx, 'store_shipping_methods', { zone_id: zoneId, title: method.title })) continue;
      await createMethod(ctx, { zone_id: zoneId, ...method });
      report.shipping_methods += 1;
    }
  }
  for (const person of DEMO_CUSTOMERS) if (await seedCustomer(ctx, person)) report.customers += 1;
  return report;
}

/** Whether the store has no catalogue yet (the demo is only loaded into an empty store at start-up). */
export async function storeIsEmpty(ctx: Ctx): Promise<boolean> {
  return !(await ctx.db('store_products').first('id'));
}
