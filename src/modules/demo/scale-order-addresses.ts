import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { insertMany } from '../../core/db';
import { pick, rngFor, type Rng } from './rng';
import type { SeededCustomer } from './scale';
import { COUNTRIES, NAMES } from './scale-data';
import { fillPattern, streetAddress } from './scale-places';

/**
 * The order-address part of `seed --scale N`: the addresses the seeded orders were placed with
 * (`store_order_addresses`), as checkout writes them: every order its billing address, a copy of the customer's
 * primary billing address; orders of physical goods also their shipping address, the customer's primary shipping
 * address, except one in twenty sent as a gift to someone in another country (a generated address there). Digital
 * orders ship nothing and have no shipping address. Deterministic per `(seed, customer number)`; the orders of a
 * batch of customers are read back by customer and written in bulk.
 */

const CUSTOMERS_PER_BATCH = 500;
const BATCHES_PER_TRANSACTION = 4;
const ROWS_PER_INSERT = 1000;
const GIFT_SHARE = 0.05;

const ADDRESS_COLUMNS = ['name', 'company_name', 'address_1', 'address_2', 'city', 'state', 'postcode', 'country', 'phone', 'email'] as const;
type AddressFields = Record<(typeof ADDRESS_COLUMNS)[number], string>;

interface OrderRow {
  id: number;
  customer_id: number;
  fulfillment_type: string;
  created_at: string;
}

/** Someone in another country than `home` the customer sends a gift to. */
function giftAddress(rng: Rng, home: AddressFields): AddressFields {
  const abroad = COUNTRIES.filter((c) => c.code !== home.country);
  const country = pick(rng, abroad);
  const names = NAMES[pick(rng, country.names)];
  const place = streetAddress(rng, country);
  return {
    name: `${pick(rng, names.first)} ${pick(rng, names.last)}`,
    company_name: '',
    address_1: place.address_1,
    address_2: place.address_2,
    city: place.city.city,
    state: place.city.state,
    postcode: fillPattern(rng, place.city.postcode),
    country: country.code,
    phone: `${place.city.phone}${fillPattern(rng, '#### ###').slice(0, 8)}`.trim(),
    email: home.email,
  };
}

async function primaryAddresses(trx: Knex.Transaction, customerIds: number[]): Promise<Map<string, AddressFields>> {
  const rows = (await trx('store_customer_addresses')
    .whereIn('customer_id', customerIds)
    .where({ is_primary: 1 })
    .select('customer_id', 'type', ...ADDRESS_COLUMNS)) as Array<AddressFields & { customer_id: number; type: string }>;
  return new Map(rows.map(({ customer_id, type, ...fields }) => [`${customer_id}:${type}`, fields]));
}

/** The addresses of one batch of customers' orders; returns how many rows it wrote. */
async function writeBatch(trx: Knex.Transaction, batch: SeededCustomer[], seed: number): Promise<number> {
  const ids = batch.map((c) => c.id);
  const orders = (
    (await trx('store_orders').whereIn('customer_id', ids).orderBy('id').select('id', 'customer_id', 'fulfillment_type', 'created_at')) as OrderRow[]
  ).map((o) => ({ ...o, id: Number(o.id), customer_id: Number(o.customer_id) }));
  const addresses = await primaryAddresses(trx, ids);
  const ordersOf = new Map<number, OrderRow[]>();
  for (const order of orders) ordersOf.set(order.customer_id, [...(ordersOf.get(order.customer_id) ?? []), order]);

  const rows: Array<Record<string, string | number>> = [];
  for (const customer of batch) {
    const billing = addresses.get(`${customer.id}:billing`);
    if (!billing) continue;
    const shipping = addresses.get(`${customer.id}:shipping`) ?? billing;
    const rng = rngFor(seed, 'order-addresses', customer.index);
    for (const order of ordersOf.get(customer.id) ?? []) {
      const stamp = { meta: '{}', created_at: order.created_at, updated_at: order.created_at };
      rows.push({ order_id: order.id, type: 'billing', ...billing, ...stamp });
      if (order.fulfillment_type !== 'physical') continue;
      const gift = rng() < GIFT_SHARE;
      rows.push({ order_id: order.id, type: 'shipping', ...(gift ? giftAddress(rng, billing) : shipping), ...stamp });
    }
  }
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await insertMany(trx, 'store_order_addresses', rows.slice(i, i + ROWS_PER_INSERT));
  return rows.length;
}

/** Writes the billing (and for physical goods shipping) address of every order of the customers; returns row counts. */
export async function seedScaleOrderAddresses(
  ctx: Ctx,
  customers: SeededCustomer[],
  seed: number,
  options: { progress?: (line: string) => void } = {},
): Promise<Record<string, number>> {
  let written = 0;
  let done = 0;
  let nextReport = 500_000;
  while (done < customers.length) {
    await ctx.db.transaction(async (trx) => {
      for (let b = 0; b < BATCHES_PER_TRANSACTION && done < customers.length; b++) {
        written += await writeBatch(trx, customers.slice(done, done + CUSTOMERS_PER_BATCH), seed);
        done += Math.min(CUSTOMERS_PER_BATCH, customers.length - done);
      }
    });
    if (options.progress && written >= nextReport && done < customers.length) {
      options.progress(`${written.toLocaleString('en-US')} order addresses …`);
      nextReport = (Math.floor(written / 500_000) + 1) * 500_000;
    }
  }
  return { store_order_addresses: written };
}
