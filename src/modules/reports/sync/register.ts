import type { Host } from '../../../host/contract';

/** Keeps the report facts and summaries in step with every order change (filled in by the sync work). */
export function registerReportSync(host: Host): void {
  void host;
}
