/**
 * Mails "Forgot your password?" links over SMTP (nodemailer, loaded at the first one). There is
 * no logging fallback: a reset link is a key to an account and is never written to the log; without
 * SMTP the owner resets passwords with `ekey-locks user reset-password` (docs/security.md).
 */
import type { Transporter } from 'nodemailer';
import type { SmtpSettings } from './invitation-mailer.js';

export interface PasswordResetMessage {
  to: string;
  /** The single-use link; carries the secret token. */
  link: string;
  /** Epoch ms after which the link no longer works. */
  expiresAt: number;
}

export interface PasswordResetMailer {
  send(message: PasswordResetMessage): Promise<void>;
}

/** Subject and plain-text body of the message. */
export function composePasswordReset(message: PasswordResetMessage): { subject: string; text: string } {
  const text = [
    'Someone (we hope you) asked to choose a new password for your eKey Locks account.',
    '',
    'Choose it here (the link works once, for 30 minutes):',
    message.link,
    '',
    `It stops working at ${new Date(message.expiresAt).toISOString()}. If you did not ask, ignore this e-mail: your password stays as it is.`,
  ];
  return { subject: 'Choose a new password for eKey Locks', text: `${text.join('\n')}\n` };
}

export class SmtpPasswordResetMailer implements PasswordResetMailer {
  private transport: Promise<Transporter> | undefined;

  constructor(private readonly settings: SmtpSettings) {}

  async send(message: PasswordResetMessage): Promise<void> {
    const { subject, text } = composePasswordReset(message);
    const transport = await this.transporter();
    await transport.sendMail({ from: this.settings.from, to: message.to, subject, text });
  }

  private transporter(): Promise<Transporter> {
    const settings = this.settings;
    this.transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: settings.host,
        port: settings.port ?? (settings.secure ? 465 : 587),
        secure: settings.secure ?? false,
        ...(settings.user === undefined ? {} : { auth: { user: settings.user, pass: settings.password ?? '' } }),
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      }),
    );
    this.transport.catch(() => {
      this.transport = undefined;
    });
    return this.transport;
  }
}
