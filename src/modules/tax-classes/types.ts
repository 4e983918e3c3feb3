/** A tax class: the set of rates a variation (by slug) or a tax rate and a category override (by id) belong to. */
export interface TaxClass {
  id: number;
  title: string;
  slug: string;
  meta: unknown[];
  created_at: string;
  updated_at: string;
}

/** The class that always exists: what a variation without a class, and everything of a deleted class, uses. */
export const STANDARD_SLUG = 'standard';
/** A variation's `tax_class` marker for "pays no tax": not a class. */
export const TAX_EXEMPT = 'tax_exempt';
export const MAX_TAX_CLASSES = 6;

/** The classes created on demand by slug, with their titles, in the order `next_builtin` offers them. */
export const BUILTIN_CLASSES = [
  { slug: 'reduced', title: 'Reduced rate' },
  { slug: 'zero', title: 'Zero rate' },
] as const;
export type BuiltinSlug = (typeof BUILTIN_CLASSES)[number]['slug'];

export interface TaxClassList {
  classes: TaxClass[];
  max_classes: number;
  next_builtin: { slug: BuiltinSlug; title: string } | null;
}

/** What a class delete moved to the Standard class. */
export interface TaxClassFallback {
  standard: TaxClass;
  variations: number;
  rates: number;
  overrides: number;
  shipping_tax_class: boolean;
}
