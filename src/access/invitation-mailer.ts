/**
 * Delivers eKey invitations: by SMTP (nodemailer) when `smtp` is configured, otherwise into the
 * log with the acceptance link, so an operator without mail can still pass the link on
 * (docs/design.md §3 eKeys). The link is the only secret ever logged — logging it is the point.
 */
import type { Logger } from '../logger.js';
import { SmtpSender, type SmtpSettings } from './smtp-sender.js';

/** Everything an invitation e-mail says. */
export interface InvitationMessage {
  /** Recipient address, as the sender typed it. */
  to: string;
  /** Display name of the user who sent the eKey. */
  senderName: string;
  lockName: string;
  /** The acceptance (sign-up) link; carries the secret invitation token. */
  link: string;
  /** The eKey's accompanying message, if any. */
  personalMessage: string | null;
  /** Epoch ms after which the link no longer works. */
  expiresAt: number;
  /** The eKey carries a door code (docs/design.md §4c): the message says one waits in the app — never the code. */
  doorCode?: boolean;
}

/** Sends one invitation; rejects when delivery fails (the caller decides what then). */
export interface InvitationMailer {
  send(message: InvitationMessage): Promise<void>;
}

/** Subject and plain-text body of an invitation (no HTML: nothing to escape, nothing to render). */
export function composeInvitation(message: InvitationMessage): { subject: string; text: string } {
  const lines = [
    `${message.senderName} has sent you an eKey for "${message.lockName}".`,
    '',
    ...(message.personalMessage ? [`Their message: ${message.personalMessage}`, ''] : []),
    ...(message.doorCode === true ? ['It comes with a door code for the keypad at the door: you will find it in the app once you have signed up.', ''] : []),
    'Create your account to accept it:',
    message.link,
    '',
    `The link works until ${new Date(message.expiresAt).toISOString()}. If you did not expect this e-mail, ignore it.`,
  ];
  return { subject: `${message.senderName} sent you an eKey for ${message.lockName}`, text: `${lines.join('\n')}\n` };
}

/** Sends invitations through the configured SMTP server. */
export class SmtpInvitationMailer implements InvitationMailer {
  private readonly sender: SmtpSender;

  constructor(settings: SmtpSettings) {
    this.sender = new SmtpSender(settings);
  }

  send(message: InvitationMessage): Promise<void> {
    return this.sender.send({ to: message.to, ...composeInvitation(message) });
  }
}

/** Without SMTP: writes the invitation, link included, to the log. */
export class LoggingInvitationMailer implements InvitationMailer {
  constructor(private readonly logger: Logger) {}

  send(message: InvitationMessage): Promise<void> {
    this.logger.info(
      `eKey invitation for ${message.to} (lock "${message.lockName}", from ${message.senderName}${message.doorCode === true ? ", a door code waits in the app" : ""}); no SMTP configured, ` +
        `pass on this acceptance link: ${message.link}`,
    );
    return Promise.resolve();
  }
}

/** The mailer the config asks for. */
export function createInvitationMailer(smtp: SmtpSettings | undefined, logger: Logger): InvitationMailer {
  return smtp === undefined ? new LoggingInvitationMailer(logger) : new SmtpInvitationMailer(smtp);
}
