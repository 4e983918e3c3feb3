import type { Knex } from 'knex';

/**
 * At most one rest-of-world shipping zone, as a unique key: `rest_of_world_key` is 1 on the rest-of-world zone and
 * NULL on every other zone (NULLs never collide, on SQLite and MySQL/MariaDB alike), so two parallel creates or
 * updates cannot both make one. The service writes it together with `is_rest_of_world`.
 *
 * A store that already has several rest-of-world zones keeps the one the calculator uses (the first by position,
 * then id); the others were never matched and become plain zones.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('store_shipping_zones', (t) => {
    t.tinyint('rest_of_world_key').nullable();
  });
  const first = (await db('store_shipping_zones').where({ is_rest_of_world: 1 }).orderBy(['position', 'id']).first('id')) as { id: number } | undefined;
  if (first) {
    await db('store_shipping_zones').where({ is_rest_of_world: 1 }).whereNot({ id: first.id }).update({ is_rest_of_world: 0 });
    await db('store_shipping_zones').where({ id: first.id }).update({ rest_of_world_key: 1 });
  }
  await db.schema.alterTable('store_shipping_zones', (t) => {
    t.unique(['rest_of_world_key']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('store_shipping_zones', (t) => {
    t.dropUnique(['rest_of_world_key']);
    t.dropColumn('rest_of_world_key');
  });
}
