// A gateway key the agent sends in a header and nowhere else: no environment variable holds it, so
// only the test file's own record of its requests' credentials can keep it out of what is written.
module.exports = { GATEWAY_KEY: 'gw-CISURFACES-7f3a9c2e5b1d4f60a8c3e9d2' };
