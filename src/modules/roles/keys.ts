import { slugify } from '../../core/slug';

/** Room left after the base for a suffix (`_2` … `_999999999`) within the 100 characters of a key. */
const BASE_LENGTH = 90;

/** `Tax & Reports` → `tax_reports`: lower-case letters and digits, `_` for everything else; `role` when nothing is left. */
export function keyFromTitle(title: string): string {
  return slugify(title, 'role', BASE_LENGTH).replace(/-/g, '_');
}

/** `base`, or the first `base_2`, `base_3`, … that `taken` does not hold. */
export function firstFreeKey(base: string, taken: (key: string) => boolean): string {
  if (!taken(base)) return base;
  let n = 2;
  while (taken(`${base}_${n}`)) n++;
  return `${base}_${n}`;
}
