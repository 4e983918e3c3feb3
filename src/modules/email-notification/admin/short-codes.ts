import { NOTIFICATIONS } from '../catalog';
import { EMAIL_BUTTONS } from '../render/buttons';
import { SMARTCODE_GROUPS } from '../render/smartcodes';
import { NOTIFICATION_KEYS } from '../types';

/** What the body editor offers: the default bodies to start from, every smartcode group and the ready-made buttons. */
export function shortCodesView() {
  const email_templates = NOTIFICATION_KEYS.map((key) => ({ path: NOTIFICATIONS[key].template_path, label: NOTIFICATIONS[key].title }));
  return { data: { email_templates, shortcodes: SMARTCODE_GROUPS, buttons: EMAIL_BUTTONS } };
}
