/**
 * Lets a plain `node` process run the TypeScript sources, the way jest does (the same @swc/core compiler and
 * options): `node -r ./tests/support/ts-register.js src/main.ts`. For tests that start the real server in processes
 * of its own.
 */
const fs = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = function compile(module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
