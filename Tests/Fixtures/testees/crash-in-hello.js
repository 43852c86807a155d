// A testee that throws while answering hello: Node prints the message above its stack frames.
const rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const request = JSON.parse(line);
  if (request.op === 'hello') {
    throw new TypeError('cannot read hello: boom');
  }
});
