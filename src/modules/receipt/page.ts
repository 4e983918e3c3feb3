import { PageError, type Host } from '../../host/contract';
import { receiptOf } from './service';

export const RECEIPT_PATH = '/receipt/';

/**
 * `GET /receipt/?order_hash=<order uuid>`: the order's receipt for whoever holds the link (the uuid is the secret, so
 * the page is never cached or indexed). An unknown or malformed hash is a 404 page.
 */
export function registerReceiptPage(host: Host): void {
  host.pages.register({
    path: RECEIPT_PATH,
    async handler(request) {
      const receipt = await receiptOf(host, request.query.order_hash);
      if (!receipt) throw new PageError(404, 'This receipt does not exist. Check the link you were given.');
      return {
        html: host.views.render('pages/receipt', receipt),
        headers: { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex, nofollow' },
      };
    },
  });
}
