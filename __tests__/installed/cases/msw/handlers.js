// A suite's own msw handlers module, written with the user's msw (2 or 3) as it already is:
// msw/setup.js serves it through setupServer, and http-use.case.js names it as the `handlers` option.
const { http, HttpResponse } = require('msw');

module.exports = [
  http.get('https://weather.example.invalid/now', () => HttpResponse.json({ temp: 21 })),
  http.post('https://weather.example.invalid/alerts', async ({ request }) =>
    HttpResponse.json({ received: await request.json() }, { status: 201 }),
  ),
];
