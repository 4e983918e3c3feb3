export { resolveAdminEmails } from './admin-emails';
export { EMAIL_BUTTONS } from './buttons';
export { buildEmailData } from './data';
export { renderNotification } from './render';
export { sampleEmailData } from './sample';
export { SMARTCODE_GROUPS } from './smartcodes';
export type { EmailData, EmailDraft } from './types';
