import { Eta } from 'eta';
import type { Views } from './contract';

/**
 * The plugin's eta templates (`templates/**.eta`), compiled once per process and cached. Every `<%= %>` is
 * HTML-escaped; `<%~ %>` writes a value raw and is only for HTML the templates themselves rendered.
 */
export function createViews(templatesDir: string): Views {
  const eta = new Eta({ views: templatesDir, autoEscape: true, cache: true, autoTrim: false });
  return {
    render: (name, data) => eta.render(name, data),
  };
}
