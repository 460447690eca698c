// The shared-worker cases' msw server, made once by the module as a suite's `mocks/server` is:
// under `isolate: false` every file of a worker listens with the same server object.
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';

export const server = setupServer(
  http.get('https://status.example.com/v1/status', () => HttpResponse.json({ status: 'up' })),
);
