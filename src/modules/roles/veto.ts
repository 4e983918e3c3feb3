import type { Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import type { RoleVeto } from './types';

/**
 * Runs a veto action (`store/role/before_assign`, `store/role/before_remove`), awaiting each listener; the first
 * `veto.reject(message, status)` refuses the change: a 4xx with that message (another status counts as 403). A
 * listener that throws is logged and skipped, as for every action: it does not veto.
 */
export async function askListeners(ctx: Ctx, action: 'store/role/before_assign' | 'store/role/before_remove', userId: number, roleKey: string): Promise<void> {
  const state: { refusal: { message: string; status: number } | null } = { refusal: null };
  const veto: RoleVeto = {
    reject(message, status = 403) {
      if (state.refusal) return;
      const clientError = Number.isInteger(status) && status >= 400 && status < 500;
      state.refusal = { message: String(message).trim() || 'Permission denied', status: clientError ? status : 403 };
    },
    get rejected() {
      return state.refusal !== null;
    },
  };
  await ctx.hooks.doActionAsync(action, userId, roleKey, veto);
  if (state.refusal) throw fail('permission_denied', state.refusal.message, { status: state.refusal.status });
}
