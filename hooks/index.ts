/**
 * The public catalogue of the store's hooks: every `store/...` action and filter with its arguments.
 * Extension authors import this file for the types; `hooks/HOOKS.md` is generated from it
 * (`npm run hooks:doc`). Entries are grouped by resource; each has a one-line description.
 */
import type { HostUser } from '../src/host/contract';

declare module '../src/host/contract' {
  interface ActionMap {
    /** A customer logged in through `POST /user/login`. */
    'store/user/logged_in': [user: HostUser];
  }

  interface FilterMap {
    /** The verdict of every store permission check; return false to deny, true to grant. */
    'store/user/can': [allowed: boolean, context: { user: HostUser; permission: string }];
    /** Where the browser goes after a successful `POST /user/login`. */
    'store/user/login_redirect': [url: string, context: { user: HostUser }];
  }
}

export {};
