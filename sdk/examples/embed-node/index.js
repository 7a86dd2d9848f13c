#!/usr/bin/env node
'use strict';
// memhost-embedder-node: a memhost embedder plugin in JavaScript. It speaks
// hashicorp/go-plugin's handshake and AutoMTLS and serves the
// memhost.v1.Embedder gRPC service (sdk/proto/memhost/v1/embedder.proto).
// docs/plugins.md, "In another language", explains each step; the steps
// below are numbered the same way.

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const { selfSignedCert } = require('./cert');
const embedder = require('./embedder');
const log = require('./log');

// The handshake of sdk/plugin (plugin.Handshake, plugin.ProtocolVersion).
const MAGIC_COOKIE_KEY = 'MEMHOST_PLUGIN';
const MAGIC_COOKIE_VALUE = 'c1c8a3f6-5b2e-4f0a-9d6e-memhost-plugin-v1';
const CORE_PROTOCOL_VERSION = 1; // go-plugin's own protocol
const APP_PROTOCOL_VERSION = 1; // memhost.v1

const PROTO_DIR = path.join(__dirname, 'proto');
const MEMHOST_PROTO = path.join(__dirname, '..', '..', 'proto', 'memhost', 'v1', 'embedder.proto');

function load(file) {
  return grpc.loadPackageDefinition(protoLoader.loadSync(file, { keepCase: true, enums: String, defaults: true }));
}

function invalid(details) {
  return { code: grpc.status.INVALID_ARGUMENT, details };
}

// Step 1: the embedder service. The limits the host relies on are enforced
// here too (INVALID_ARGUMENT is a permanent error to the host).
const embedderService = {
  Describe(_call, callback) {
    callback(null, embedder.info);
  },
  Embed(call, callback) {
    const { texts, purpose } = call.request;
    if (!['PURPOSE_UNSPECIFIED', 'PURPOSE_DOCUMENT', 'PURPOSE_QUERY'].includes(purpose)) {
      return callback(invalid(`unknown purpose ${purpose}`));
    }
    if (texts.length > embedder.info.max_batch) {
      return callback(invalid(`batch of ${texts.length} texts exceeds max batch ${embedder.info.max_batch}`));
    }
    for (const [i, text] of texts.entries()) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > embedder.info.max_input_bytes) {
        return callback(invalid(`text ${i} is ${bytes} bytes, exceeds max input bytes ${embedder.info.max_input_bytes}`));
      }
    }
    if (call.cancelled) {
      return callback({ code: grpc.status.CANCELLED, details: 'cancelled by the host' });
    }
    callback(null, { vectors: texts.map((text) => ({ values: embedder.embed(text) })) });
  },
  Health(_call, callback) {
    callback(null, { ok: true, message: '' });
  },
};

// Step 3: go-plugin pings the connection with grpc.health.v1.Health/Check
// for the service "plugin".
const healthService = {
  Check(call, callback) {
    if (call.request.service !== '' && call.request.service !== 'plugin') {
      return callback({ code: grpc.status.NOT_FOUND, details: `unknown service ${call.request.service}` });
    }
    callback(null, { status: 'SERVING' });
  },
};

function main() {
  // Step 0: refuse to run unless a host launched us.
  if (process.env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    process.stderr.write('this program is a memhost embedder plugin: the memhost host starts it, it is not meant to be run by hand\n');
    process.exit(1);
  }
  const offered = (process.env.PLUGIN_PROTOCOL_VERSIONS ?? '').split(',');
  if (!offered.includes(String(APP_PROTOCOL_VERSION))) {
    log.error('host speaks no protocol version this plugin serves', { offered: offered.join(','), served: APP_PROTOCOL_VERSION });
    process.exit(1);
  }

  const { memhost } = load(MEMHOST_PROTO);
  const health = load(path.join(PROTO_DIR, 'health.proto')).grpc.health.v1;
  const goPlugin = load(path.join(PROTO_DIR, 'go_plugin.proto')).plugin;

  const server = new grpc.Server();
  const stdioStreams = new Set();
  let socket;
  const shutdown = () => {
    for (const call of stdioStreams) call.end();
    const timer = setTimeout(() => server.forceShutdown(), 1000);
    server.tryShutdown(() => {
      clearTimeout(timer);
      if (socket) fs.rmSync(socket, { force: true });
      process.exit(0);
    });
  };
  server.addService(memhost.v1.Embedder.service, embedderService);
  server.addService(health.Health.service, healthService);
  // Step 4: the host asks the plugin to exit through GRPCController and
  // streams its stdio through GRPCStdio (kept open, empty: we log to stderr).
  server.addService(goPlugin.GRPCController.service, {
    Shutdown(_call, callback) {
      callback(null, {});
      setImmediate(shutdown);
    },
  });
  server.addService(goPlugin.GRPCStdio.service, {
    StreamStdio(call) {
      stdioStreams.add(call);
      call.on('cancelled', () => stdioStreams.delete(call));
    },
  });

  // Step 2: AutoMTLS. The host's certificate arrives in PLUGIN_CLIENT_CERT
  // (PEM); we answer with our own self-signed one in the handshake line and
  // require the host to present its certificate.
  let credentials = grpc.ServerCredentials.createInsecure();
  let cert = '';
  if (process.env.PLUGIN_CLIENT_CERT) {
    const own = selfSignedCert();
    credentials = grpc.ServerCredentials.createSsl(
      Buffer.from(process.env.PLUGIN_CLIENT_CERT),
      [{ private_key: Buffer.from(own.keyPem), cert_chain: Buffer.from(own.certPem) }],
      true, // checkClientCertificate
    );
    cert = own.handshake;
  }

  // Step 5: listen on a unix socket, in PLUGIN_UNIX_SOCKET_DIR when the host
  // sets it, and print the handshake line on stdout.
  socket = path.join(process.env.PLUGIN_UNIX_SOCKET_DIR || os.tmpdir(), `plugin-${crypto.randomBytes(6).toString('hex')}.sock`);
  server.bindAsync(`unix:${socket}`, credentials, (err) => {
    if (err) {
      log.error('cannot listen', { error: err.message });
      process.exit(1);
    }
    process.stdout.write(`${CORE_PROTOCOL_VERSION}|${APP_PROTOCOL_VERSION}|unix|${socket}|grpc|${cert}\n`);
    log.info('serving', { embedder: embedder.info.name });
  });

  // Like go-plugin's Go servers, ignore interrupts: Ctrl-C in the host's
  // terminal reaches the plugin too, and the host shuts its plugins down
  // itself.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', shutdown);
}

main();
