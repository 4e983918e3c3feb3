import { Type } from '@sinclair/typebox';
import { Id, MAX_ID } from '../../core/schema';
import { ADDRESS_TYPES } from '../customers/types';

/**
 * The address forms of the profile answer validation errors in the spec's style, `{message: 'Name field is required.'}`:
 * every rule of every field carries its own message in that style.
 */
function text(label: string, options: { required?: boolean; max?: number; email?: boolean } = {}) {
  const { required = false, max = 255, email = false } = options;
  return Type.String({
    ...(required ? { minLength: 1 } : {}),
    maxLength: max,
    ...(email ? { format: 'email' } : {}),
    messages: {
      required: `${label} field is required.`,
      string: `${label} field must be a string.`,
      max: `${label} field must not be greater than ${max} characters.`,
      email: `${label} field must be a valid email address.`,
    },
  });
}

const addressType = Type.Union(
  ADDRESS_TYPES.map((type) => Type.Literal(type)),
  { messages: { required: 'Type field is required.', in: 'Type field must be billing or shipping.', string: 'Type field must be billing or shipping.' } },
);

/** The address fields both forms share; `type`, `name`, `postcode`, `country` are required in both. */
const addressFields = {
  type: addressType,
  name: text('Name', { required: true }),
  label: Type.Optional(text('Label', { max: 15 })),
  company_name: Type.Optional(text('Company name')),
  address_1: Type.Optional(text('Address 1')),
  address_2: Type.Optional(text('Address 2')),
  city: Type.Optional(text('City')),
  state: Type.Optional(text('State')),
  postcode: text('Postcode', { required: true, max: 45 }),
  country: text('Country', { required: true, max: 45 }),
  phone: Type.Optional(text('Phone', { max: 45 })),
};

/** 0/1; also '0'/'1' or a boolean, as form clients send it (the same values the address routes accept). */
const flag = Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal('0'), Type.Literal('1'), Type.Boolean()], {
  messages: { in: 'Is primary field must be 0 or 1.', boolean: 'Is primary field must be 0 or 1.' },
});

/** `POST /customer-profile/create-address`. Unknown fields are ignored (never stored), so a form can be posted as it is. */
export const CreateAddressBody = Type.Object({
  ...addressFields,
  email: text('Email', { required: true, email: true }),
  is_primary: Type.Optional(flag),
});

/** `POST /customer-profile/edit-address`: the address `id` plus the form; fields left out keep their value. */
export const EditAddressBody = Type.Object({
  id: Id({
    messages: {
      required: 'Id field is required.',
      integer: 'Id field must be an integer.',
      min: 'Id field must be at least 1.',
      max: `Id field must not be greater than ${MAX_ID}.`,
    },
  }),
  ...addressFields,
  email: Type.Optional(text('Email', { email: true })),
});

/** `POST /customer-profile/update`. Empty password fields mean "no password change", as a form sends them. */
export const ProfileUpdateBody = Type.Object({
  first_name: Type.Optional(Type.String({ maxLength: 255 })),
  last_name: Type.Optional(Type.String({ maxLength: 255 })),
  email: Type.String({ minLength: 1, maxLength: 255, format: 'email' }),
  current_password: Type.Optional(Type.String({ maxLength: 4096 })),
  new_password: Type.Optional(Type.String({ maxLength: 4096 })),
  confirm_new_password: Type.Optional(Type.String({ maxLength: 4096 })),
});
