/**
 * The one SMTP sender of the service's e-mails (invitations, password resets): plain text through
 * the configured server with nodemailer, loaded at the first message, not at start-up
 * (docs/architecture.md "Start-up"): most homes send a few a year.
 */
import type { Transporter } from 'nodemailer';
import type { PluginConfig } from '../config/plugin-config.js';

/** SMTP settings of the plugin config. */
export type SmtpSettings = NonNullable<PluginConfig['smtp']>;

/** One plain-text e-mail (no HTML: nothing to escape, nothing to render). */
export interface PlainTextMail {
  to: string;
  subject: string;
  text: string;
}

export class SmtpSender {
  private transport: Promise<Transporter> | undefined;

  constructor(private readonly settings: SmtpSettings) {}

  /** Sends one e-mail from the configured address; rejects when delivery fails. */
  async send(mail: PlainTextMail): Promise<void> {
    const transport = await this.transporter();
    await transport.sendMail({ from: this.settings.from, to: mail.to, subject: mail.subject, text: mail.text });
  }

  private transporter(): Promise<Transporter> {
    const settings = this.settings;
    this.transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: settings.host,
        port: settings.port ?? (settings.secure ? 465 : 587),
        secure: settings.secure ?? false,
        ...(settings.user === undefined ? {} : { auth: { user: settings.user, pass: settings.password ?? '' } }),
        // A slow or dead mail server must not hold a message (or shutdown) for minutes.
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      }),
    );
    // A failed load is tried again at the next message.
    this.transport.catch(() => {
      this.transport = undefined;
    });
    return this.transport;
  }
}
