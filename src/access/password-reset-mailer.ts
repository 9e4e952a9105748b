/**
 * Mails "Forgot your password?" links over SMTP (nodemailer, loaded at the first one). There is
 * no logging fallback: a reset link is a key to an account and is never written to the log; without
 * SMTP the owner resets passwords with `ekey-locks user reset-password` (docs/security.md).
 */
import { SmtpSender, type SmtpSettings } from './smtp-sender.js';

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

/** Sends reset links through the configured SMTP server. */
export class SmtpPasswordResetMailer implements PasswordResetMailer {
  private readonly sender: SmtpSender;

  constructor(settings: SmtpSettings) {
    this.sender = new SmtpSender(settings);
  }

  send(message: PasswordResetMessage): Promise<void> {
    return this.sender.send({ to: message.to, ...composePasswordReset(message) });
  }
}
