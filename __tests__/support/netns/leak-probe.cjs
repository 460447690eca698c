// The control: a plain node process (nothing contains it) makes the connections the cases make,
// and the traps must count them. Proves that a leak from the contained run would be seen.
const dgram = require('node:dgram');
const dns = require('node:dns');
const net = require('node:net');

const settled = (start) => new Promise((resolve) => start(() => resolve()));
Promise.all([
  settled((done) => {
    const socket = net.connect(5432, 'db.invalid');
    socket.once('connect', () => socket.destroy());
    socket.once('close', done);
  }),
  settled((done) => dns.lookup('dns.invalid', () => done())),
  settled((done) => dns.resolve4('dns.invalid', () => done())),
  settled((done) => {
    const socket = dgram.createSocket('udp4');
    socket.send('ping', 5353, 'udp.invalid', () => setTimeout(() => socket.close(done), 100));
  }),
]).then(() => setTimeout(() => process.exit(0), 100));
