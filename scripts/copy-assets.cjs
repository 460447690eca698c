#!/usr/bin/env node
// Copies the files the compiled package reads at run time but tsc does not emit (the HTML
// timeline's stylesheet and script) beside their modules in dist/. Part of `npm run build`.
const { copyFileSync, mkdirSync } = require('node:fs');
const { dirname, join } = require('node:path');

const root = join(__dirname, '..');
const ASSETS = ['src/trace/timeline.css', 'src/trace/timeline.js'];

module.exports = { ASSETS };

if (require.main === module)
  for (const asset of ASSETS) {
    const to = join(root, 'dist', asset);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(root, asset), to);
  }
