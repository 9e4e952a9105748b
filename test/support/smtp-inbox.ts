import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { startTestService, type TestService } from './test-service.js';

/** One message as the server received it. */
export interface ReceivedMail {
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback that keeps every message it receives. */
export interface SmtpInbox {
  port: number;
  /** Every message received and not yet taken by {@link next}, oldest first. */
  mails: ReceivedMail[];
  /** Takes the oldest message, waiting for one when there is none yet. */
  next(): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** Starts an SMTP server (smtp-server) on a free loopback port, without TLS or authentication. */
export async function startSmtpInbox(): Promise<SmtpInbox> {
  const mails: ReceivedMail[] = [];
  const waiting: ((mail: ReceivedMail) => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = { to: session.envelope.rcptTo.map((address) => address.address), raw: Buffer.concat(chunks).toString('utf8') };
        mails.push(mail);
        waiting.shift()?.(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const next = (): Promise<ReceivedMail> =>
    new Promise((resolve) => {
      const already = mails.shift();
      if (already) resolve(already);
      else
        waiting.push((mail) => {
          mails.splice(mails.indexOf(mail), 1);
          resolve(mail);
        });
    });
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  return { port, mails, next, close };
}

/** The plugin's `smtp` block for a server on loopback `port`. */
export function loopbackSmtp(port: number): { host: string; port: number; secure: boolean; from: string } {
  return { host: '127.0.0.1', port, secure: false, from: 'locks@example.com' };
}

/** The service of a test and the SMTP server it mails through. */
export interface ServiceWithInbox {
  test: TestService;
  smtp: SmtpInbox;
  /** Closes the service, then the SMTP server. */
  close(): Promise<void>;
}

/** Starts an {@link SmtpInbox} and a test service that mails through it. */
export async function startServiceWithInbox(): Promise<ServiceWithInbox> {
  const smtp = await startSmtpInbox();
  const test = await startTestService({ config: { smtp: loopbackSmtp(smtp.port) } });
  return {
    test,
    smtp,
    close: async () => {
      await test.close();
      await smtp.close();
    },
  };
}

/**
 * The service's link in a (quoted-printable or plain) message body: `http://127.0.0.1:<port>/<path>/`
 * and a 43-character token, as the invitation and the password-reset mails carry it.
 */
export function linkIn(raw: string, path: 'invitations' | 'password/reset'): string {
  const unfolded = raw.replace(/=\r?\n/g, '');
  const match = new RegExp(`(http://127\\.0\\.0\\.1:\\d+/${path}/[A-Za-z0-9_-]{43})`).exec(unfolded);
  if (!match?.[1]) throw new Error(`no ${path} link in:\n${raw}`);
  return match[1];
}
