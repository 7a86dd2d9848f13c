'use strict';
// The plugin's side of go-plugin's AutoMTLS: a fresh self-signed certificate
// for "localhost" (ECDSA P-256), built with node:crypto and a minimal DER
// encoder, since Node has no API that creates certificates. The host pins
// exactly this certificate from the handshake line, so no CA is involved.

const crypto = require('node:crypto');

function length(n) {
  if (n < 0x80) return Buffer.from([n]);
  const bytes = [];
  for (; n > 0; n >>>= 8) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag, ...parts) {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...parts) => tlv(0x30, ...parts);
const set = (...parts) => tlv(0x31, ...parts);
const octets = (...parts) => tlv(0x04, ...parts);

function oid(dotted) {
  const arcs = dotted.split('.').map(Number);
  const bytes = [40 * arcs[0] + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const enc = [arc & 0x7f];
    for (let rest = arc >>> 7; rest > 0; rest >>>= 7) enc.unshift((rest & 0x7f) | 0x80);
    bytes.push(...enc);
  }
  return tlv(0x06, Buffer.from(bytes));
}

// integer encodes a non-negative big-endian number.
function integer(bytes) {
  return tlv(0x02, bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

// utcTime is valid up to 2049, far beyond the certificate's life.
function utcTime(date) {
  return tlv(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z'));
}

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

// selfSignedCert returns the certificate (PEM and DER), its private key
// (PEM) and the DER in the form go-plugin's handshake line carries:
// base64 with the standard alphabet and no padding (Go's RawStdEncoding).
function selfSignedCert() {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const name = sequence(set(sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from('localhost')))));
  const serial = crypto.randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x40; // positive, no leading zero byte
  const now = Date.now();
  const extensions = sequence(
    // subjectAltName: DNS "localhost", the name the host verifies.
    sequence(oid('2.5.29.17'), octets(sequence(tlv(0x82, Buffer.from('localhost'))))),
    // keyUsage (critical): digitalSignature.
    sequence(oid('2.5.29.15'), tlv(0x01, Buffer.from([0xff])), octets(tlv(0x03, Buffer.from([0x07, 0x80])))),
    // extKeyUsage: serverAuth.
    sequence(oid('2.5.29.37'), octets(sequence(oid('1.3.6.1.5.5.7.3.1')))),
  );
  const tbs = sequence(
    tlv(0xa0, integer(Buffer.from([2]))), // version 3
    integer(serial),
    ECDSA_WITH_SHA256,
    name,
    sequence(utcTime(new Date(now - 30_000)), utcTime(new Date(now + 10 * 365 * 24 * 3600_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, extensions),
  );
  const signature = crypto.sign('sha256', tbs, privateKey); // DER ECDSA-Sig-Value
  const der = sequence(tbs, ECDSA_WITH_SHA256, tlv(0x03, Buffer.from([0]), signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g).join('\n')}\n-----END CERTIFICATE-----\n`;
  return {
    der,
    certPem: pem,
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    handshake: der.toString('base64').replace(/=+$/, ''),
  };
}

module.exports = { selfSignedCert };
