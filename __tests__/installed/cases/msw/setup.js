// The suite's setupFilesAfterEnv file, unchanged from msw's docs (with the strictest
// onUnhandledRequest): listen before the file, reset after each test, close after the file.
const { afterAll, afterEach, beforeAll } = require('../runner-globals.cjs');
const { server } = require('./server');

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());
