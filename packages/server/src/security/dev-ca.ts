/**
 * A development certificate authority and node certificates, made offline (node-forge signs;
 * Node's crypto makes the keys). Each node certificate has CN = node id (what the peer guard
 * checks), the given hosts as subject alternative names, and both server and client auth, so
 * the one certificate serves HTTPS, accepts peers and calls them.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

export interface Issued {
  readonly certPem: string;
  readonly keyPem: string;
}

const DAY_MS = 24 * 3600 * 1000;

function rsaKeys(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  return { privateKey: key, publicKey: forge.pki.setRsaPublicKey(key.n, key.e) };
}

function newCertificate(publicKey: forge.pki.PublicKey, days: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // A positive serial: the leading 01 byte keeps the high bit clear.
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + days * DAY_MS);
  return cert;
}

export function createCa(name: string, days: number): Issued {
  const keys = rsaKeys();
  const cert = newCertificate(keys.publicKey, days);
  const subject = [
    { name: 'commonName', value: name },
    { name: 'organizationName', value: 'Tessera development' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}

/** A certificate for `nodeId`, valid for `hosts` (DNS names or IP addresses), signed by the CA. */
export function issueNodeCertificate(
  ca: Issued,
  nodeId: string,
  hosts: readonly string[],
  days: number,
): Issued {
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem);
  const keys = rsaKeys();
  const cert = newCertificate(keys.publicKey, days);
  cert.setSubject([
    { name: 'commonName', value: nodeId },
    { name: 'organizationName', value: 'Tessera development' },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  const names = [...new Set([nodeId, ...hosts])];
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    {
      name: 'subjectAltName',
      altNames: names.map((h) => (isIP(h) === 0 ? { type: 2, value: h } : { type: 7, ip: h })),
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}
