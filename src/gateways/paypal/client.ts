import axios, { type InternalAxiosRequestConfig } from 'axios';
import {
  Client,
  ClientCredentialsAuthManager,
  Environment,
  OrdersController,
  PaymentsController,
  SubscriptionsController,
  type OAuthToken,
} from '@paypal/paypal-server-sdk';
import { VENDOR_BASES, paypalApiBase, paypalTimeoutMs, type PayPalCredentials } from './config';

/** One REST app in one mode: the SDK's controllers, and a bearer token for the calls the SDK lacks. */
export interface PayPalApi {
  orders: OrdersController;
  payments: PaymentsController;
  /** Billing plans and subscriptions. */
  subscriptions: SubscriptionsController;
  /** Where the calls go (`PAYPAL_API_BASE` or PayPal's host of the mode). */
  base: string;
  timeoutMs: number;
  /** A valid OAuth token (client credentials), the one the SDK's calls use, renewed when it expires. */
  accessToken(): Promise<string>;
}

/**
 * The SDK knows only PayPal's two hosts and takes no base URL. When `PAYPAL_API_BASE` points elsewhere (a local fake
 * in tests), every request goes through axios's own node adapter with the vendor host swapped for that base. The SDK
 * calls this option `unstable_`; it is used for that redirection only.
 */
function rebasedTransport(vendorBase: string, base: string): { adapter: (config: InternalAxiosRequestConfig) => Promise<unknown> } | undefined {
  if (base === vendorBase) return undefined;
  const http = axios.getAdapter('http');
  return { adapter: (config) => http({ ...config, url: config.url?.replace(vendorBase, base) }) };
}

function createApi(credentials: PayPalCredentials, base: string, timeoutMs: number): PayPalApi {
  let token: Promise<OAuthToken> | undefined;
  async function freshToken(manager: ClientCredentialsAuthManager): Promise<OAuthToken> {
    const current = await token?.catch(() => undefined);
    if (current && !manager.isExpired(current)) return current;
    token = manager.fetchToken();
    return token;
  }
  const client = new Client({
    environment: credentials.mode === 'live' ? Environment.Production : Environment.Sandbox,
    timeout: timeoutMs,
    clientCredentialsAuthCredentials: {
      oAuthClientId: credentials.client_id,
      oAuthClientSecret: credentials.client_secret,
      oAuthTokenProvider: (_last, manager) => freshToken(manager),
    },
    unstable_httpClientOptions: rebasedTransport(VENDOR_BASES[credentials.mode], base),
  });
  return {
    orders: new OrdersController(client),
    payments: new PaymentsController(client),
    subscriptions: new SubscriptionsController(client),
    base,
    timeoutMs,
    accessToken: async () => (await freshToken(client.clientCredentialsAuthManager)).accessToken,
  };
}

const apis = new Map<string, PayPalApi>();

/** The API of a REST app, built once per credentials, base and timeout (so the OAuth token is reused). */
export function paypalApi(credentials: PayPalCredentials): PayPalApi {
  const base = paypalApiBase(credentials.mode);
  const timeoutMs = paypalTimeoutMs();
  const key = JSON.stringify([credentials.mode, credentials.client_id, credentials.client_secret, base, timeoutMs]);
  let api = apis.get(key);
  if (!api) {
    api = createApi(credentials, base, timeoutMs);
    apis.set(key, api);
  }
  return api;
}
