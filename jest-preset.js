module.exports = require('./presets/jest-preset.js');
