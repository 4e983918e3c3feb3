import type { Ctx } from '../../core/context';
import { currentCart } from '../cart/current';
import type { Cart } from '../cart/types';

/** The caller's current cart while checkout may still change it (not completed); null when there is none. */
export async function openCart(ctx: Ctx, cartHash: string | undefined): Promise<Cart | null> {
  const cart = await currentCart(ctx, cartHash);
  return cart && cart.stage !== 'completed' ? cart : null;
}
