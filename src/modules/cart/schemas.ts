import { Type } from '@sinclair/typebox';
import { Id, IntegerIn } from '../../core/schema';
import { CART_COOKIE } from './current';
import { MAX_QUANTITY } from './service';

/** Every cart route accepts the cart hash as a query parameter too (an "instant" cart link); the cookie is the usual carrier. */
export const CartQuery = Type.Object({
  [CART_COOKIE]: Type.Optional(Type.String({ maxLength: 64, description: 'The cart hash, when not sent in the `fct_cart_hash` cookie.' })),
});

export const AddItemBody = Type.Object({
  variation_id: Id({ description: 'The product variation to add.' }),
  quantity: Type.Optional(IntegerIn(1, MAX_QUANTITY, { description: 'Units to add to those already in the cart; default 1.' })),
});

export const SetItemBody = Type.Object({
  quantity: IntegerIn(0, MAX_QUANTITY, { description: 'The line’s new quantity; 0 removes it.' }),
});

export const ItemParams = Type.Object({ variation_id: Id() });

export const CouponBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }) });

export const CouponParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }) });
