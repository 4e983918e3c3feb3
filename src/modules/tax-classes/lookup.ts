import type { Knex } from 'knex';
import { lockForShare, lockForUpdate, parseJson } from '../../core/db';
import type { FieldErrors } from '../../core/errors';
import { STANDARD_SLUG, TAX_EXEMPT, type TaxClass } from './types';

type Db = Knex | Knex.Transaction;

export const TAX_CLASSES = 'store_tax_classes';

/**
 * `share`: on MySQL the rows read cannot change or be deleted until the caller's transaction ends (a class delete
 * waits), while other writers may share them; what a write that starts to reference a class takes. `update`: only one
 * transaction at a time (the class writes). Locks are taken on the primary key, in id order, whatever is looked for:
 * a lock through the slug index would meet a delete's lock on the same row from the other side (a deadlock).
 */
export type ClassLock = 'share' | 'update';

interface TaxClassRow {
  id: number | string;
  title: string;
  slug: string;
  meta: unknown;
  created_at: string;
  updated_at: string;
}

function present(row: TaxClassRow): TaxClass {
  const meta = parseJson<unknown>(row.meta, []);
  return {
    id: Number(row.id),
    title: row.title,
    slug: row.slug,
    meta: Array.isArray(meta) ? meta : [],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function locked(db: Db, query: Knex.QueryBuilder, lock: ClassLock | undefined): Knex.QueryBuilder {
  if (lock === 'share') return lockForShare(query, db);
  return lock === 'update' ? lockForUpdate(query, db) : query;
}

/** Every class by id ascending (the Standard class first: the migration created it). */
export async function listTaxClasses(db: Db, lock?: ClassLock): Promise<TaxClass[]> {
  return ((await locked(db, db(TAX_CLASSES).select('*').orderBy('id'), lock)) as TaxClassRow[]).map(present);
}

/** The class with `id`, or null. */
export async function findTaxClass(db: Db, id: number, lock?: ClassLock): Promise<TaxClass | null> {
  const row = (await locked(db, db(TAX_CLASSES).where({ id }), lock).first()) as TaxClassRow | undefined;
  return row ? present(row) : null;
}

/** The class with exactly this slug, or null; with a lock, every class is held (see `ClassLock`). */
export async function taxClassBySlug(db: Db, slug: string, lock?: ClassLock): Promise<TaxClass | null> {
  if (lock) return (await listTaxClasses(db, lock)).find((c) => c.slug === slug) ?? null;
  const rows = (await db(TAX_CLASSES).where({ slug })) as TaxClassRow[];
  // MySQL's collation also matches other letter cases.
  const row = rows.find((r) => r.slug === slug);
  return row ? present(row) : null;
}

/** The Standard class, or null in a database where it was removed by hand. */
export const standardTaxClass = (db: Db, lock?: ClassLock): Promise<TaxClass | null> => taxClassBySlug(db, STANDARD_SLUG, lock);

/** Of `slugs`, those that are no class's slug; the classes are held with a share lock (see `ClassLock`). */
export async function missingTaxClassSlugs(db: Db, slugs: string[]): Promise<string[]> {
  const wanted = [...new Set(slugs)];
  if (!wanted.length) return [];
  const found = new Set((await listTaxClasses(db, 'share')).map((c) => c.slug));
  return wanted.filter((slug) => !found.has(slug));
}

/**
 * A variation's `tax_class` must be empty (the Standard class), `tax_exempt`, or a class's slug: the 422 field errors of
 * `entries` that are not, each on its own field (`tax_class`, `variations.0.tax_class`).
 */
export async function variationTaxClassErrors(db: Db, entries: Array<{ field: string; tax_class: string | null }>): Promise<FieldErrors> {
  const named = entries.filter((e): e is { field: string; tax_class: string } => !!e.tax_class && e.tax_class !== TAX_EXEMPT);
  const missing = new Set(
    await missingTaxClassSlugs(
      db,
      named.map((e) => e.tax_class),
    ),
  );
  const errors: FieldErrors = {};
  for (const entry of named) if (missing.has(entry.tax_class)) errors[entry.field] = { exists: 'The selected tax class is invalid.' };
  return errors;
}
