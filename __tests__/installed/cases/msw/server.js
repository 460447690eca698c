// The suite's msw server, as msw's docs set it up: tests import it to call server.use().
const { setupServer } = require('msw/node');
const handlers = require('./handlers');

module.exports = { server: setupServer(...handlers) };
