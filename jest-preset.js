module.exports = require('./environment/jest/jest-preset.js');
