import fs from 'node:fs';
import path from 'node:path';
import type { Plugin, PluginManifest } from './contract';

const REQUIRED: Array<keyof PluginManifest> = ['name', 'version', 'namespace', 'entry', 'migrations', 'templates', 'permissions', 'hooks'];

export function readManifest(packageRoot: string): PluginManifest {
  const file = path.join(packageRoot, 'plugin.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<PluginManifest>;
  const missing = REQUIRED.filter((key) => manifest[key] === undefined);
  if (missing.length) throw new Error(`plugin.json is missing ${missing.join(', ')}`);
  if (manifest.commands !== undefined && typeof manifest.commands !== 'string') throw new Error('plugin.json: "commands" must be a module path');
  if (!/^[a-z0-9-]+\/v\d+$/.test(manifest.namespace!)) throw new Error(`plugin.json: invalid namespace "${manifest.namespace}"`);
  return manifest as PluginManifest;
}

function loadModule(codeRoot: string, file: string): Plugin {
  const loaded = require(path.join(codeRoot, file.replace(/\.(ts|js)$/, ''))) as Partial<Plugin>;
  if (typeof loaded.register !== 'function') throw new Error(`plugin module ${file} does not export register(host)`);
  return loaded as Plugin;
}

/** Loads the plugin's entry module (compiled `.js`, or `.ts` under the test runner) and returns its `register`. */
export function loadEntry(codeRoot: string, manifest: PluginManifest): Plugin {
  return loadModule(codeRoot, manifest.entry);
}

/** What the CLI loads: the plugin's light `commands` module when the manifest names one, else its whole entry. */
export function loadCommands(codeRoot: string, manifest: PluginManifest): Plugin {
  return loadModule(codeRoot, manifest.commands ?? manifest.entry);
}
