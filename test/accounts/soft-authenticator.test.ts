/**
 * The software authenticator the passkey tests stand in for a browser with, checked against
 * @simplewebauthn/server's own verifiers: what it makes verifies, and what it is told to get wrong is refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type {
  AuthenticationResponseJSON,
  RegistrationResponseJSON,
  ResidentKeyRequirement,
  WebAuthnCredential,
} from '@simplewebauthn/server';
import { isoUint8Array } from '@simplewebauthn/server/helpers';
import { SoftAuthenticator, withBadSignature } from '../helpers/soft-authenticator.js';
import type { AuthenticateCeremony, RegisterCeremony } from '../helpers/soft-authenticator.js';

const rpID = 'localhost';
const origin = 'http://localhost:3000';

const registrationOptions = (residentKey: ResidentKeyRequirement = 'required', exclude: string[] = []) =>
  generateRegistrationOptions({
    rpName: 'authsvc',
    rpID,
    userName: 'jane@example.org',
    userID: isoUint8Array.fromUTF8String('user-42'),
    // Passed every time: the library's default selection is one shared object that it mutates.
    authenticatorSelection: { residentKey, userVerification: 'required' },
    excludeCredentials: exclude.map((id) => ({ id })),
  });

/** A credential registered and verified, as the server would store it. */
async function registered(authenticator: SoftAuthenticator, residentKey?: ResidentKeyRequirement, counter?: number) {
  const options = await registrationOptions(residentKey);
  const response = authenticator.register(options, { origin, ...(counter === undefined ? {} : { counter }) });
  const { verified, registrationInfo } = await verifyRegistrationResponse({
    response,
    expectedChallenge: options.challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
  });
  assert.ok(verified && registrationInfo);
  return { options, credential: registrationInfo.credential };
}

/** Sign in with the credential: the options' challenge, the ceremony as given, the stored credential. */
async function signIn(
  authenticator: SoftAuthenticator,
  credential: WebAuthnCredential,
  ceremony: Partial<AuthenticateCeremony> = {},
  tamper: (r: AuthenticationResponseJSON) => AuthenticationResponseJSON = (r) => r,
) {
  const options = await generateAuthenticationOptions({ rpID, allowCredentials: [{ id: credential.id }] });
  const response = tamper(authenticator.authenticate(options, { origin, ...ceremony }));
  return verifyAuthenticationResponse({
    response,
    expectedChallenge: options.challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
    credential,
  });
}

describe('soft authenticator: registration', () => {
  it('makes a "none" attestation that verifies, reporting its credential id and public key', async () => {
    const authenticator = new SoftAuthenticator();
    const options = await registrationOptions();
    const response = authenticator.register(options, { origin });
    const { verified, registrationInfo } = await verifyRegistrationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
    });
    assert.equal(verified, true);
    assert.equal(registrationInfo?.fmt, 'none');
    assert.equal(registrationInfo.credential.id, response.id);
    assert.equal(registrationInfo.credential.counter, 0);
    assert.deepEqual(registrationInfo.credential.transports, ['internal']);
    assert.equal(registrationInfo.userVerified, true);
    assert.equal(registrationInfo.credentialDeviceType, 'singleDevice');
    assert.ok(registrationInfo.credential.publicKey.length > 64, 'a COSE EC2 key: two 32-byte coordinates and more');
    assert.equal(response.response.publicKeyAlgorithm, -7);
    assert.deepEqual(response.clientExtensionResults, { credProps: { rk: true } });
    assert.deepEqual(
      authenticator.credentials.map((c) => [c.id, c.rpId, c.userHandle]),
      [[response.id, rpID, options.user.id]],
    );
  });

  it('is verified when it verifies the user, and refused where the server requires it and it did not', async () => {
    const options = await registrationOptions();
    const verify = (ceremony: RegisterCeremony, requireUserVerification: boolean) =>
      verifyRegistrationResponse({
        response: new SoftAuthenticator().register(options, ceremony),
        expectedChallenge: options.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification,
      });
    assert.equal((await verify({ origin, uv: true }, true)).verified, true);
    await assert.rejects(verify({ origin, uv: false }, true), /User verification was required/);
    const unverified = await verify({ origin, uv: false }, false);
    assert.equal(unverified.verified, true);
    assert.equal(unverified.registrationInfo?.userVerified, false);
    await assert.rejects(verify({ origin, up: false }, false), /User presence was required/);
  });

  it('marks a synced passkey as backed up', async () => {
    const options = await registrationOptions();
    const { registrationInfo } = await verifyRegistrationResponse({
      response: new SoftAuthenticator().register(options, { origin, backedUp: true }),
      expectedChallenge: options.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
    });
    assert.equal(registrationInfo?.credentialDeviceType, 'multiDevice');
    assert.equal(registrationInfo.credentialBackedUp, true);
  });

  it('is refused from another origin or for another challenge', async () => {
    const options = await registrationOptions();
    const other = await registrationOptions();
    const verify = (response: RegistrationResponseJSON) =>
      verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: origin });
    await assert.rejects(
      verify(new SoftAuthenticator().register(options, { origin: 'https://evil.example' })),
      /Unexpected registration response origin/,
    );
    await assert.rejects(
      verify(new SoftAuthenticator().register(other, { origin })),
      /Unexpected registration response challenge/,
    );
  });

  it('refuses, as a browser does, to register again where the server excludes a credential it holds', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await registered(authenticator);
    const options = await registrationOptions('required', [credential.id]);
    assert.throws(() => authenticator.register(options, { origin }), { name: 'InvalidStateError' });
    // Another authenticator holds no excluded credential and may register.
    assert.doesNotThrow(() => new SoftAuthenticator().register(options, { origin }));
  });
});

describe('soft authenticator: authentication', () => {
  it('signs for an allowed credential, one more on the counter each time', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await registered(authenticator);
    for (const expected of [1, 2, 3]) {
      const { verified, authenticationInfo } = await signIn(authenticator, credential);
      assert.equal(verified, true);
      assert.equal(authenticationInfo.newCounter, expected);
      assert.equal(authenticationInfo.userVerified, true);
      credential.counter = authenticationInfo.newCounter;
    }
  });

  it('offers a discoverable credential when nothing is allowed, with the user handle of its registration', async () => {
    const authenticator = new SoftAuthenticator();
    await registered(authenticator, 'discouraged');
    const { options, credential } = await registered(authenticator, 'required');
    const request = await generateAuthenticationOptions({ rpID, userVerification: 'required' });
    const response = authenticator.authenticate(request, { origin });
    assert.equal(response.id, credential.id);
    assert.equal(response.response.userHandle, options.user.id);
    const { verified } = await verifyAuthenticationResponse({
      response,
      expectedChallenge: request.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential,
    });
    assert.equal(verified, true);
  });

  it('has nothing to offer without an allow list when no credential is discoverable, or for another RP', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await registered(authenticator, 'discouraged');
    const request = await generateAuthenticationOptions({ rpID });
    assert.throws(() => authenticator.authenticate(request, { origin }), { name: 'NotAllowedError' });
    const elsewhere = await generateAuthenticationOptions({ rpID: 'example.org', allowCredentials: [credential] });
    assert.throws(() => authenticator.authenticate(elsewhere, { origin: 'https://example.org' }), {
      name: 'NotAllowedError',
    });
  });

  it('is refused from another origin or for another challenge', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await registered(authenticator);
    await assert.rejects(
      signIn(authenticator, credential, { origin: 'https://evil.example' }),
      /Unexpected authentication response origin/,
    );
    const options = await generateAuthenticationOptions({ rpID });
    const response = authenticator.authenticate(options, { origin });
    await assert.rejects(
      verifyAuthenticationResponse({
        response,
        expectedChallenge: 'c29tZXRoaW5nIGVsc2U',
        expectedOrigin: origin,
        expectedRPID: rpID,
        credential,
      }),
      /Unexpected authentication response challenge/,
    );
  });

  it('is refused without user verification (the default) or presence', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await registered(authenticator);
    await assert.rejects(signIn(authenticator, credential, { uv: false }), /User verification required/);
    await assert.rejects(signIn(authenticator, credential, { up: false }), /User not present/);
  });

  it('is refused when the counter does not move past the stored one (a cloned authenticator)', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await registered(authenticator, 'required', 10);
    assert.equal(credential.counter, 10);
    await assert.rejects(signIn(authenticator, credential, { counter: 10 }), /Response counter value 10/);
    await assert.rejects(signIn(authenticator, credential, { counter: 3 }), /Response counter value 3/);
    // The override was one-off: the authenticator's own next counter is 11.
    assert.equal((await signIn(authenticator, credential)).authenticationInfo.newCounter, 11);
  });

  it('may send 0 every time while the stored counter is 0 (synced passkeys do not count)', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await registered(authenticator);
    for (let i = 0; i < 2; i++) assert.equal((await signIn(authenticator, credential, { counter: 0 })).verified, true);
  });

  it('is not verified with a changed signature byte', async () => {
    const authenticator = new SoftAuthenticator();
    const { credential } = await registered(authenticator);
    assert.equal((await signIn(authenticator, credential, {}, withBadSignature)).verified, false);
  });
});
