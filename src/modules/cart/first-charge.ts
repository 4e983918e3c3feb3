import type { LineDraft } from '../orders/write-lines';

/** The item `payment_type` of a subscription's signup fee (reference §2: its own order line). */
export const SIGNUP_FEE_TYPE = 'signup_fee';

const termsOf = (line: LineDraft) => ({
  trialDays: Number(line.other_info.trial_days ?? 0),
  signupFee: Number(line.other_info.signup_fee ?? 0),
});

/**
 * The lines of a cart as its first charge bills them: a subscription line in a trial costs nothing now (its price,
 * kept in `other_info.recurring_unit_price`, is the recurring amount), and a signup fee is its own line of quantity
 * 1 (one fee per subscription, whatever its quantity), appended after the cart's lines so they keep their indexes.
 * The fee line names the product but no variation: it holds no stock.
 */
export function firstChargeLines(lines: LineDraft[]): LineDraft[] {
  const fees: LineDraft[] = [];
  const charged = lines.map((line) => {
    if (line.payment_type !== 'subscription') return line;
    const { trialDays, signupFee } = termsOf(line);
    if (signupFee > 0) {
      fees.push({
        ...line,
        itemId: null,
        variation_id: null,
        title: `${line.title ? `${line.title} - ` : ''}Signup fee`,
        fulfillment_type: 'digital',
        payment_type: SIGNUP_FEE_TYPE,
        unit_price: signupFee,
        item_cost: 0,
        quantity: 1,
        refund_total: 0,
        other_info: { signup_fee_of: line.variation_id },
        line_meta: {},
      });
    }
    const other_info = { ...line.other_info, recurring_unit_price: line.unit_price };
    return { ...line, other_info, unit_price: trialDays > 0 ? 0 : line.unit_price };
  });
  return [...charged, ...fees];
}
