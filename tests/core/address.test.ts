import { addressRules, countryName, formatFullAddress, isKnownCountry, normalizeAddressFields, validateAddressFields } from '../../src/core/address';

describe('core/address: country rules from the libaddressinput data', () => {
  describe('countryName / isKnownCountry', () => {
    it.each([
      ['US', 'United States of America', true],
      ['gb', 'United Kingdom', true],
      ['DE', 'Germany', true],
      ['JP', 'Japan', true],
      ['XX', 'XX', false],
      ['USA', 'USA', false],
      ['', '', false],
    ])('%s → %s (known: %s)', (code, name, known) => {
      expect(countryName(code)).toBe(name);
      expect(isKnownCountry(code)).toBe(known);
    });
  });

  describe('addressRules(country)', () => {
    it('US: 62 states and territories by code, state/ZIP/city required', async () => {
      const rules = await addressRules('US');
      expect(rules).toMatchObject({
        country_code: 'US',
        address_locale: {
          state: { label: 'State', required: true },
          postcode: { label: 'ZIP Code', required: true },
          city: { label: 'City', required: true },
        },
      });
      expect(rules!.states).toHaveLength(62);
      expect(rules!.states).toContainEqual({ label: 'California', value: 'CA' });
      expect(rules!.states).toContainEqual({ label: 'Armed Forces (AE)', value: 'AE' });
    });

    it.each([
      [
        'GB',
        0,
        { state: { label: 'Province', required: false }, postcode: { label: 'Postcode', required: true }, city: { label: 'Post Town', required: true } },
      ],
      ['DE', 0, { state: { label: 'Province', required: false }, postcode: { label: 'Postcode', required: true }, city: { label: 'City', required: true } }],
      ['IE', 26, { state: { label: 'County', required: false }, postcode: { label: 'Eircode', required: false }, city: { label: 'City', required: true } }],
      ['JP', 47, { state: { label: 'Prefecture', required: true }, postcode: { label: 'Postcode', required: true }, city: { label: 'City', required: false } }],
      ['ca', 13, { state: { label: 'Province', required: true }, postcode: { label: 'Postcode', required: true }, city: { label: 'City', required: true } }],
    ])('%s: %i states, locale %j', async (code, states, locale) => {
      const rules = await addressRules(code);
      expect(rules!.country_code).toBe(code.toUpperCase());
      expect(rules!.states).toHaveLength(states);
      expect(rules!.address_locale).toEqual(locale);
    });

    it('JP prefectures use their ISO 3166-2 numbers with Latin names', async () => {
      const rules = await addressRules('JP');
      expect(rules!.states[0]).toEqual({ label: 'Hokkaido', value: '01' });
      expect(rules!.states).toContainEqual({ label: 'Tokyo', value: '13' });
    });

    it('an unknown country has no rules', async () => {
      expect(await addressRules('XX')).toBeNull();
      expect(await addressRules('USA')).toBeNull();
    });

    it('answers the same object shape from the cache', async () => {
      expect(await addressRules('US')).toEqual(await addressRules('US'));
    });
  });

  describe('validateAddressFields(fields, prefix?)', () => {
    it.each([
      ['US with CA and a matching ZIP', { country: 'US', state: 'CA', postcode: '94105', city: 'San Francisco' }, {}],
      ['US ZIP+4', { country: 'US', state: 'NY', postcode: '10001-1234', city: 'New York' }, {}],
      ['US state given by name, any case', { country: 'us', state: 'california', postcode: '94105', city: 'SF' }, {}],
      [
        'US without state, postcode and city',
        { country: 'US', state: '', postcode: '', city: '' },
        {
          state: { required: 'The state field is required.' },
          postcode: { required: 'The postcode field is required.' },
          city: { required: 'The city field is required.' },
        },
      ],
      ['US with an unknown state', { country: 'US', state: 'ZZ', postcode: '94105', city: 'SF' }, { state: { in: 'The selected state is invalid.' } }],
      [
        'US with a bad ZIP',
        { country: 'US', state: 'CA', postcode: 'ABCDE', city: 'SF' },
        { postcode: { postcode: 'The postcode is not valid for United States of America.' } },
      ],
      [
        'US with a ZIP of another state',
        { country: 'US', state: 'CA', postcode: '10001', city: 'SF' },
        { postcode: { postcode: 'The postcode is not valid for California, United States of America.' } },
      ],
      ['GB postcode', { country: 'GB', postcode: 'SW1A 2AA', city: 'London' }, {}],
      ['GB postcode in lower case', { country: 'GB', postcode: 'sw1a 2aa', city: 'London' }, {}],
      ['GB bad postcode', { country: 'GB', postcode: '12345', city: 'London' }, { postcode: { postcode: 'The postcode is not valid for United Kingdom.' } }],
      ['GB without postcode', { country: 'GB', city: 'London' }, { postcode: { required: 'The postcode field is required.' } }],
      ['DE without states: any state text', { country: 'DE', state: 'BE', postcode: '10117', city: 'Berlin' }, {}],
      ['DE without state', { country: 'DE', postcode: '10117', city: 'Berlin' }, {}],
      ['DE bad postcode', { country: 'DE', postcode: '1011', city: 'Berlin' }, { postcode: { postcode: 'The postcode is not valid for Germany.' } }],
      ['IE eircode optional', { country: 'IE', city: 'Cork' }, {}],
      ['IE eircode checked when given', { country: 'IE', postcode: 'T12 X70A', city: 'Cork' }, {}],
      ['IE bad eircode', { country: 'IE', postcode: 'T1', city: 'Cork' }, { postcode: { postcode: 'The postcode is not valid for Ireland.' } }],
      ['IE county not required, but must be one', { country: 'IE', state: 'Atlantis', city: 'Cork' }, { state: { in: 'The selected state is invalid.' } }],
      ['JP prefecture by number', { country: 'JP', state: '13', postcode: '100-0001' }, {}],
      ['JP prefecture by name', { country: 'JP', state: 'Tokyo', postcode: '1000001' }, {}],
      ['JP prefecture by its Japanese key', { country: 'JP', state: '東京都', postcode: '100-0001' }, {}],
      ['JP without prefecture', { country: 'JP', postcode: '100-0001' }, { state: { required: 'The state field is required.' } }],
      [
        'JP postcode of another prefecture',
        { country: 'JP', state: '13', postcode: '600-8001' },
        { postcode: { postcode: 'The postcode is not valid for Tokyo, Japan.' } },
      ],
      ['unknown country', { country: 'XX', state: 'CA', postcode: '1' }, { country: { in: 'The selected country is invalid.' } }],
      ['alpha-3 code', { country: 'USA' }, { country: { in: 'The selected country is invalid.' } }],
      ['no country', { country: '' }, { country: { required: 'The country field is required.' } }],
    ])('%s', async (_case, fields, errors) => {
      expect(await validateAddressFields(fields)).toEqual(errors);
    });

    it('names the fields with the prefix', async () => {
      expect(await validateAddressFields({ country: 'US', state: 'XX', postcode: 'nope', city: '' }, 'billing_')).toEqual({
        billing_state: { in: 'The selected billing state is invalid.' },
        billing_postcode: { postcode: 'The billing postcode is not valid for United States of America.' },
        billing_city: { required: 'The billing city field is required.' },
      });
      expect(await validateAddressFields({ country: 'XX' }, 'shipping_')).toEqual({ shipping_country: { in: 'The selected shipping country is invalid.' } });
    });
  });

  describe('normalizeAddressFields(fields)', () => {
    it.each([
      [
        { country: 'us', state: 'california', postcode: ' 94105 ' },
        { country: 'US', state: 'CA', postcode: '94105' },
      ],
      [
        { country: 'JP', state: 'Tokyo', postcode: '100-0001' },
        { country: 'JP', state: '13', postcode: '100-0001' },
      ],
      [
        { country: 'gb', state: '', postcode: 'sw1a 2aa' },
        { country: 'GB', state: '', postcode: 'SW1A 2AA' },
      ],
      [
        { country: 'DE', state: ' Berlin ', postcode: '10117' },
        { country: 'DE', state: 'Berlin', postcode: '10117' },
      ],
    ])('%j → %j', async (fields, normalized) => {
      expect(await normalizeAddressFields(fields)).toEqual(normalized);
    });
  });

  describe('formatFullAddress(address)', () => {
    it.each([
      [
        'US: city, state and ZIP on one line',
        {
          name: 'Jane Doe',
          company_name: 'Acme',
          address_1: '1 Market Street',
          address_2: 'Suite 5',
          city: 'San Francisco',
          state: 'CA',
          postcode: '94105',
          country: 'US',
        },
        'Jane Doe, Acme, 1 Market Street, Suite 5, SAN FRANCISCO, CA 94105, United States of America',
      ],
      [
        'GB: post town, then postcode',
        { name: 'John Smith', address_1: '10 Downing Street', city: 'London', postcode: 'SW1A 2AA', country: 'GB' },
        'John Smith, 10 Downing Street, LONDON, SW1A 2AA, United Kingdom',
      ],
      [
        'DE: postcode before city',
        { name: 'Erika Mustermann', address_1: 'Friedrichstraße 12', city: 'Berlin', state: 'BE', postcode: '10117', country: 'DE' },
        'Erika Mustermann, Friedrichstraße 12, 10117 BERLIN, Germany',
      ],
      [
        'JP: the Latin-script format with the prefecture name',
        { name: 'Taro Yamada', address_1: '1-1 Chiyoda', state: '13', postcode: '100-0001', country: 'JP' },
        'Taro Yamada, 1-1 Chiyoda, TOKYO, 100-0001, Japan',
      ],
      ['unknown country: the parts in order', { name: 'A', address_1: 'B', city: 'C', state: 'D', postcode: 'E', country: 'XX' }, 'A, B, C, D, E, XX'],
    ])('%s', async (_case, address, expected) => {
      expect(await formatFullAddress(address)).toBe(expected);
    });
  });
});
