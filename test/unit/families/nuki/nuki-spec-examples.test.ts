import { describe, expect, it } from '@jest/globals';
import nacl from 'tweetnacl';
import { NukiCommand, NukiLockAction, NukiLockState, NukiStatusCode } from '../../../../src/families/nuki/protocol/nuki-commands.js';
import { createNukiKeyPair, deriveNukiSharedKey, nukiAuthenticator } from '../../../../src/families/nuki/protocol/nuki-crypto.js';
import { decodeEncryptedFrame, decodeUnencryptedFrame, encodeEncryptedFrame } from '../../../../src/families/nuki/protocol/nuki-frame.js';
import { NukiMessageAssembler } from '../../../../src/families/nuki/protocol/nuki-message-assembler.js';
import {
  authorizationAuthenticatorBytes,
  decodeChallenge,
  decodeKeyturnerStates,
  decodeStatus,
  encodeLockAction,
  encodeRequestData,
  encodeStatus,
} from '../../../../src/families/nuki/protocol/nuki-messages.js';
import { pairNukiLock, type NukiPairingChannel } from '../../../../src/families/nuki/protocol/nuki-pairing.js';

/*
 * Nuki Smart Lock API V2.1 §9 "Command usage examples", byte for byte, through the functions the
 * runtime uses. The PDF's text loses three hex digits in two places (marked "C66" below, the value
 * the MAC and the authenticator check confirm).
 */

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

const SHARED_KEY = hex('217FCB0F18CAF284E9BDEA0B94B83B8D10867ED706BFDEDBD2381F4CB3B8F730');
const AUTHORIZATION_ID = 2;

/** Opens an encrypted frame without our decoder, to compare the plaintext with the spec's. */
function plaintextOf(frame: Buffer): Buffer {
  const opened = nacl.secretbox.open(frame.subarray(30), frame.subarray(0, 24), SHARED_KEY);
  if (opened === null) throw new Error('secretbox.open failed');
  return Buffer.from(opened);
}

/** Feeds indications through the runtime's assembler; expects exactly one frame out. */
function reassemble(mode: 'encrypted' | 'unencrypted', indications: string[]): Buffer {
  const assembler = new NukiMessageAssembler(mode);
  const frames = indications.flatMap((indication) => assembler.push(hex(indication)));
  expect(frames).toHaveLength(1);
  expect(assembler.bufferedBytes).toBe(0);
  return frames[0] ?? Buffer.alloc(0);
}

describe('§9 Authorize App', () => {
  const clientSecretKey = hex('8CAA54672307BFFDF5EA183FC607158D2011D008ECA6A1088614FF0853A5AA07');
  const clientPublicKey = hex('F88127CCF48023B5CBE9101D24BAA8A368DA94E8C2E3CDE2DED29CE96AB50C15');
  const lockPublicKey = hex('2FE57DA347CD62431528DAAC5FBB290730FFF684AFC4CFC2ED90995F58CB3B74');
  const firstChallenge = hex('6CD4163D159050C798553EAA57E278A579AFFCBC56F09FC57FE879E51C42DF17');
  const clientNonce = hex('52AFE0A664B4E9B56DC6BD4CB718A6C9FED6BE17A7411072AA0D315378140577');

  /** What the client (CL) writes, step by step. */
  const clientFrames = [
    '0100 0300 27A7',
    '0300 F88127CCF48023B5CBE9101D24BAA8A368DA94E8C2E3CDE2DED29CE96AB50C15 9241',
    '0500 B09A0D3979A029E5FD027B519EAA200BC14AD3E163D3BE4563843E021073BCB1 C357',
    '0600 CF1B9E7801E3196E6594E76D57908EE500AAD5C33F4B6E0BBEA0DDEF82967BFC 00 00000000' +
      ' 4D61726320285465737429000000000000000000000000000000000000000000' +
      ' 52AFE0A664B4E9B56DC6BD4CB718A6C9FED6BE17A7411072AA0D315378140577 69F2',
    '1E00 3A41B91A66FBC4D22EFEFBB7272140829695A3917433D5BEB981B76166D13F8A 02000000 CDF5',
  ];

  /** What the lock (SL) indicates after each client frame, as the spec's separate indications. */
  const lockIndications: string[][] = [
    ['03002FE57DA347CD62431528DAAC5FBB290730FF', 'F684AFC4CFC2ED90995F58CB3B749DB9'],
    ['04006CD4163D159050C798553EAA57E278A579AF', 'FCBC56F09FC57FE879E51C42DF17C3DF'],
    ['0400E0742CFEA39CB46109385BF91286A3C02F40', 'EE86B0B62FC34033094DE41E2C0D7FE1'],
    [
      '07003A270A2E453443C3790E657CEBE634B03F01',
      '02F45681B4067C661D46E6E15EDF0200000083B3', // "C66" lost in the PDF's text
      '3643C6D97EF77ED51C02A277CBF7EA479915982F',
      '13C61D997A56678AD77791BFA7E95229A3DD34F8',
      '7132BF3E3C97DB9F',
    ],
    ['0E00009DD7'],
  ];

  /**
   * The lock of the transcript: each client frame must equal the spec's; the answer is indicated
   * fragment by fragment and reassembled as at run time.
   */
  function scriptedLock(): NukiPairingChannel & { sent: Buffer[] } {
    const sent: Buffer[] = [];
    const assembler = new NukiMessageAssembler('unencrypted');
    const ready: Buffer[] = [];
    return {
      sent,
      send(frame) {
        const step = sent.length;
        sent.push(frame);
        const expected = clientFrames[step];
        if (expected === undefined || !frame.equals(hex(expected))) {
          return Promise.reject(new Error(`client frame ${step + 1} differs from the spec: ${frame.toString('hex')}`));
        }
        for (const indication of lockIndications[step] ?? []) ready.push(...assembler.push(hex(indication)));
        return Promise.resolve();
      },
      receive() {
        const frame = ready.shift();
        return frame === undefined ? Promise.reject(new Error('timeout')) : Promise.resolve(frame);
      },
    };
  }

  it('derives the client public key, the DH key and the shared key of steps 5, 7 and 8', () => {
    const keyPair = createNukiKeyPair(clientSecretKey);
    expect(keyPair.publicKey).toEqual(clientPublicKey);
    expect(Buffer.from(nacl.scalarMult(clientSecretKey, lockPublicKey))).toEqual(hex('0DE40B998E0E330376F2D2FC4892A6931E25055FD09F054F99E93FECD9BA611E'));
    expect(deriveNukiSharedKey(clientSecretKey, lockPublicKey)).toEqual(SHARED_KEY);
  });

  it('computes the authenticator of step 11 over both public keys and the challenge', () => {
    expect(nukiAuthenticator(SHARED_KEY, authorizationAuthenticatorBytes(clientPublicKey, lockPublicKey, firstChallenge))).toEqual(
      hex('B09A0D3979A029E5FD027B519EAA200BC14AD3E163D3BE4563843E021073BCB1'),
    );
  });

  it('pairs exactly as the transcript: every client frame byte for byte, the credentials of the example', async () => {
    const channel = scriptedLock();
    const credentials = await pairNukiLock(channel, {
      name: 'Marc (Test)',
      idType: 'app',
      appId: 0,
      keyPair: createNukiKeyPair(clientSecretKey),
      nonce: () => clientNonce,
    });
    expect(channel.sent.map((frame) => frame.toString('hex'))).toEqual(clientFrames.map((frame) => hex(frame).toString('hex')));
    expect(credentials).toEqual({
      sharedKey: SHARED_KEY,
      authorizationId: AUTHORIZATION_ID,
      appId: 0,
      idType: 'app',
      lockUuid: hex('83B33643C6D97EF77ED51C02A277CBF7'),
      lockPublicKey,
    });
  });

  it('has a valid CRC on every frame of the lock', () => {
    for (const indications of lockIndications) {
      expect(decodeUnencryptedFrame(reassemble('unencrypted', indications)).crcOk).toBe(true);
    }
  });
});

describe('§9 Read lock state', () => {
  it('encrypts Request Data(Keyturner States) to the spec bytes (1a, 1b)', () => {
    const frame = encodeEncryptedFrame({
      sharedKey: SHARED_KEY,
      authorizationId: AUTHORIZATION_ID,
      nonce: hex('37917F1AF31EC5940705F34D1E5550607D5B2F9FE7D496B6'),
      command: NukiCommand.requestData,
      payload: encodeRequestData({ command: NukiCommand.keyturnerStates, additionalData: Buffer.alloc(0) }),
    });
    expect(plaintextOf(frame)).toEqual(hex('02000000 0100 0C00 418D'));
    expect(frame).toEqual(hex('37917F1AF31EC5940705F34D1E5550607D5B2F9FE7D496B6 02000000 1A00 670D124926004366532E8D927A33FE84E782A9594D39157D065E'));
  });

  it('reassembles, decrypts and parses the Keyturner States of step 2', () => {
    const frame = reassemble('encrypted', [
      '90B0757CFED0243017EAF5E089F8583B9839D61B',
      '050924D2020000002700B13938B67121B6D528E7',
      'DE206B0D7C5A94587A471B33EBFB012CED8F1261',
      '135566ED756E3910B5',
    ]);
    const decoded = decodeEncryptedFrame(frame, SHARED_KEY);
    expect(decoded).toMatchObject({ authorizationId: AUTHORIZATION_ID, command: NukiCommand.keyturnerStates, crcOk: true });
    expect(decoded.payload).toEqual(hex('020100E0070307080F1E3C0000200A'));
    expect(decodeKeyturnerStates(decoded.payload)).toMatchObject({
      nukiState: 0x02,
      lockState: NukiLockState.locked,
      trigger: 0x00,
      currentTime: Date.UTC(2016, 2, 7, 8, 15, 30),
      timezoneOffsetMinutes: 60,
      battery: { critical: false },
    });
  });
});

describe('§9 Perform unlock', () => {
  const challenge = hex('57D95521BEA186B5A9244F025737924C5B7E33592D0614D5F6EF2E2F142C6D4B');

  it('encrypts Request Data(Challenge) to the spec bytes (1a, 1b)', () => {
    const frame = encodeEncryptedFrame({
      sharedKey: SHARED_KEY,
      authorizationId: AUTHORIZATION_ID,
      nonce: hex('88FDEFD7F941B63C242B7F84B3D786886340A4A8B1C1EAA0'),
      command: NukiCommand.requestData,
      payload: encodeRequestData({ command: NukiCommand.challenge, additionalData: Buffer.alloc(0) }),
    });
    expect(plaintextOf(frame)).toEqual(hex('02000000 0100 0400 E804'));
    expect(frame).toEqual(hex('88FDEFD7F941B63C242B7F84B3D786886340A4A8B1C1EAA0 02000000 1A00 066819A2956E6A79AF6ED66D257B276715F51F63A8BEB9ED0D47'));
  });

  it('reassembles and decrypts the Challenge of step 2', () => {
    const frame = reassemble('encrypted', [
      '99C8613A9F6AB6D3FB0399D37AD38C5C003AC139',
      'B1567BC102000000380028CDCC668C08DA47BF32', // "C66" lost in the PDF's text
      '3BF9371EBF068F6D480438563660780A4234D9A2',
      '3794E305EE37878874EDE106A0BBFCF5B60E0C2E',
      '2BA17248A02B',
    ]);
    const decoded = decodeEncryptedFrame(frame, SHARED_KEY);
    expect(decoded).toMatchObject({ authorizationId: AUTHORIZATION_ID, command: NukiCommand.challenge, crcOk: true });
    expect(decodeChallenge(decoded.payload).nonce).toEqual(challenge);
  });

  it('encrypts the Lock Action (unlock) of step 3 to the spec bytes', () => {
    const frame = encodeEncryptedFrame({
      sharedKey: SHARED_KEY,
      authorizationId: AUTHORIZATION_ID,
      nonce: hex('19467990B69FFBE3D484A5882C995449E3EBC878712152E7'),
      command: NukiCommand.lockAction,
      payload: encodeLockAction({ action: NukiLockAction.unlock, appId: 0, flags: 0, nameSuffix: null, nonce: challenge }),
    });
    expect(plaintextOf(frame)).toEqual(hex(`02000000 0D00 01 00000000 00 ${challenge.toString('hex')} CACF`));
    expect(frame).toEqual(
      hex(
        '19467990B69FFBE3D484A5882C995449E3EBC878712152E7 02000000 3E00 B30D19E0C0A12F4D8C887864877B8853437825D587F85BB6C21BF674' +
          'E204A685AC5E40E8A5FDB85349F520069496F092FAB63736928C0933DB34CFA21809',
      ),
    );
  });

  it('has the plaintext of Status ACCEPTED (step 4) and COMPLETE (step 7)', () => {
    for (const [status, plaintext] of [
      [NukiStatusCode.ACCEPTED, '02000000 0E00 01 0D9A'],
      [NukiStatusCode.COMPLETE, '02000000 0E00 00 2C8A'],
    ] as const) {
      const frame = encodeEncryptedFrame({
        sharedKey: SHARED_KEY,
        authorizationId: AUTHORIZATION_ID,
        nonce: Buffer.alloc(24, 7),
        command: NukiCommand.status,
        payload: encodeStatus({ status }),
      });
      expect(plaintextOf(frame)).toEqual(hex(plaintext));
      expect(decodeStatus(decodeEncryptedFrame(frame, SHARED_KEY).payload)).toEqual({ status });
    }
  });

  it('parses the Keyturner States of steps 5 (unlocking) and 6 (unlocked)', () => {
    expect(decodeKeyturnerStates(hex('020200E00703070818203C00000007'))).toMatchObject({
      lockState: NukiLockState.unlocking,
      currentTime: Date.UTC(2016, 2, 7, 8, 24, 32),
      timezoneOffsetMinutes: 60,
    });
    expect(decodeKeyturnerStates(hex('020300E007030708182C3C00000007'))).toMatchObject({
      lockState: NukiLockState.unlocked,
      currentTime: Date.UTC(2016, 2, 7, 8, 24, 44),
    });
  });
});
