import fs from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Mailer, MailMessage, Site } from './contract';

/** SMTP connections kept open and shared by the messages sent at once (query parameters of the URL win). */
const SMTP_POOL = { pool: true, maxConnections: 5, maxMessages: 500 } as const;

/**
 * Sends mail through SMTP when a transport URL is configured, over a pool of connections reused from message to
 * message; otherwise writes each message as an `.eml` file under `<dataDir>/mail`, so a fresh install never loses
 * mail and needs no mail server.
 */
export class HostMailer implements Mailer {
  private transport: Transporter | null = null;

  constructor(
    private readonly site: Site,
    private readonly smtpUrl: string | null,
    private readonly mailDir: string,
  ) {}

  /** nodemailer loads with the first message, so a process that sends none (a CLI command) does not pay for it. */
  private transporter(): Transporter {
    if (!this.transport) {
      const nodemailer = require('nodemailer') as typeof import('nodemailer');
      this.transport = this.smtpUrl
        ? nodemailer.createTransport({ url: this.smtpUrl, ...SMTP_POOL })
        : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    }
    return this.transport;
  }

  async send(message: MailMessage): Promise<{ messageId: string }> {
    const info = (await this.transporter().sendMail({
      from: message.from ?? { name: this.site.title, address: this.site.admin_email },
      to: message.to,
      subject: message.subject,
      html: message.html,
      text: message.text,
      replyTo: message.replyTo,
      headers: message.headers,
    })) as { messageId: string; message?: Buffer };
    if (!this.smtpUrl && info.message) {
      await fs.mkdir(this.mailDir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${info.messageId.replace(/[^a-zA-Z0-9]/g, '').slice(0, 24)}.eml`;
      await fs.writeFile(path.join(this.mailDir, name), info.message);
    }
    return { messageId: info.messageId };
  }

  /** Closes the pooled SMTP connections (they would keep the process alive). */
  close(): void {
    this.transport?.close();
    this.transport = null;
  }
}
