import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on loopback that keeps every message it receives, parsed. */
export interface SmtpSink {
  /** The host's `smtpUrl` for it. */
  url: string;
  messages: ParsedMail[];
  /** The messages sent to `address`, oldest first. */
  to(address: string): ParsedMail[];
  /** Refuses the next `count` messages with `451` (a temporary failure: the sender should try again later). */
  refuseNext(count: number): void;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  let refusals = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, done) {
      if (refusals > 0) {
        refusals--;
        stream.resume();
        stream.on('end', () => done(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 })));
        return;
      }
      simpleParser(stream).then((mail) => {
        messages.push(mail);
        done();
      }, done);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    messages,
    to: (address) => messages.filter((m) => m.to && [m.to].flat().some((t) => t.value.some((v) => v.address === address))),
    refuseNext: (count) => {
      refusals = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
