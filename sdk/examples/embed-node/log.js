'use strict';
// Logging for a go-plugin plugin: hclog-style JSON lines on stderr, which
// the host parses into its own log with their level. Never stdout: the
// handshake line travels there.

// go-plugin parses @timestamp with microseconds ("...T15:04:05.000000Z");
// Date gives milliseconds.
function timestamp() {
  return new Date().toISOString().replace(/Z$/, '000Z');
}

function write(level, message, fields) {
  const entry = { '@level': level, '@message': message, '@module': 'embed-node', '@timestamp': timestamp(), ...fields };
  process.stderr.write(JSON.stringify(entry) + '\n');
}

module.exports = {
  info: (message, fields = {}) => write('info', message, fields),
  warn: (message, fields = {}) => write('warn', message, fields),
  error: (message, fields = {}) => write('error', message, fields),
};
