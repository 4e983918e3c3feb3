import fs from 'node:fs';
import path from 'node:path';
import type { Plugin, PluginManifest } from './contract';

const REQUIRED: Array<keyof PluginManifest> = ['name', 'version', 'namespace', 'entry', 'migrations', 'templates', 'permissions', 'hooks'];

export function readManifest(packageRoot: string): PluginManifest {
  const file = path.join(packageRoot, 'plugin.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<PluginManifest>;
  const missing = REQUIRED.filter((key) => manifest[key] === undefined);
  if (missing.length) throw new Error(`plugin.json is missing ${missing.join(', ')}`);
  if (!/^[a-z0-9-]+\/v\d+$/.test(manifest.namespace!)) throw new Error(`plugin.json: invalid namespace "${manifest.namespace}"`);
  return manifest as PluginManifest;
}

/** Loads the plugin's entry module (compiled `.js`, or `.ts` under the test runner) and returns its `register`. */
export function loadEntry(codeRoot: string, manifest: PluginManifest): Plugin {
  const entry = path.join(codeRoot, manifest.entry.replace(/\.(ts|js)$/, ''));
  const loaded = require(entry) as Partial<Plugin>;
  if (typeof loaded.register !== 'function') throw new Error(`plugin entry ${manifest.entry} does not export register(host)`);
  return loaded as Plugin;
}
