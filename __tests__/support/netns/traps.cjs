// Listeners on loopback inside the test's network namespace, on the ports the containment cases
// aim at, and a DNS server that answers every query "no such name". Each connection, datagram or
// query is counted under the current phase (the `phase` file) in `counts.json`. Run by run.sh.
const dgram = require('node:dgram');
const { readFileSync, writeFileSync } = require('node:fs');
const net = require('node:net');
const { join } = require('node:path');

const dir = process.argv[2];
const TCP = [53, 80, 443, 5432, 6379, 8080, 8443];
const UDP = [53, 5353];
const counts = {};

const names = {};

function hit(what) {
  const phase = readFileSync(join(dir, 'phase'), 'utf8').trim();
  counts[phase] ??= {};
  counts[phase][what] = (counts[phase][what] ?? 0) + 1;
  writeFileSync(join(dir, 'counts.json'), JSON.stringify(counts));
}

/** The name a DNS query asks for, lower case, recorded per phase in `names.json`. */
function noteName(query) {
  const labels = [];
  for (let i = 12; i < query.length && query[i] !== 0; i += query[i] + 1)
    labels.push(query.subarray(i + 1, i + 1 + query[i]).toString('latin1'));
  const phase = readFileSync(join(dir, 'phase'), 'utf8').trim();
  const name = labels.join('.').toLowerCase();
  names[phase] ??= [];
  if (!names[phase].includes(name)) names[phase].push(name);
  writeFileSync(join(dir, 'names.json'), JSON.stringify(names));
}

/** The query's header and question, as a response with RCODE 3 (NXDOMAIN) and nothing else. */
function noSuchName(query) {
  let end = 12;
  while (end < query.length && query[end] !== 0) end += query[end] + 1;
  end += 5; // the root label, QTYPE, QCLASS
  const answer = Buffer.from(query.subarray(0, Math.min(end, query.length)));
  answer.writeUInt16BE(0x8183, 2);
  answer.writeUInt16BE(1, 4);
  answer.fill(0, 6, 12);
  return answer;
}

const listening = [];
for (const port of TCP) {
  const server = net.createServer((socket) => {
    hit(`tcp:${port}`);
    socket.destroy();
  });
  listening.push(new Promise((resolve) => server.listen(port, '127.0.0.1', resolve)));
}
for (const port of UDP) {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (message, from) => {
    hit(`udp:${port}`);
    if (port === 53 && message.length > 12) noteName(message);
    if (port === 53 && message.length > 12) socket.send(noSuchName(message), from.port, from.address);
  });
  listening.push(new Promise((resolve) => socket.bind(port, '127.0.0.1', resolve)));
}
Promise.all(listening).then(() => writeFileSync(join(dir, 'ready'), ''));
